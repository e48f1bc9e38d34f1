import { useEffect, useState } from 'react';
import { Balance, Usage, UsageMonth } from '../api/types';
import { WorkspaceSettings } from '../components/workspace-settings';
import { formatAmount, formatEur } from '../logic/money';
import { useClient } from '../session-context';

/** Minutes per month as inline SVG bars (oldest left); the table below carries the same numbers in text. */
export function UsageChart({ months }: { months: UsageMonth[] }) {
  const ordered = [...months].reverse();
  const minutes = ordered.map((month) => month.standardMinutes + month.premiumMinutes);
  const max = Math.max(1, ...minutes);
  const width = 40 * Math.max(ordered.length, 1);
  return (
    <svg className="chart" viewBox={`0 0 ${width} 130`} role="img" aria-labelledby="usage-chart-title">
      <title id="usage-chart-title">
        Minutes transcribed per month:{' '}
        {ordered.map((month, index) => `${month.month} ${minutes[index].toFixed(1)}`).join(', ')}
      </title>
      {ordered.map((month, index) => {
        const height = (minutes[index] / max) * 100;
        return (
          <g key={month.month}>
            <rect x={index * 40 + 8} y={105 - height} width={24} height={height} className="bar" />
            <text x={index * 40 + 20} y={122} textAnchor="middle" className="axis">
              {month.month.slice(5, 7)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export function AccountPage() {
  const client = useClient();
  const [balance, setBalance] = useState<Balance | null>(null);
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    client
      .json<{ data: Balance }>('/v1/account/balance')
      .then((answer) => setBalance(answer.data))
      .catch((caught: Error) => setError(caught.message));
    client
      .json<{ data: Usage }>('/v1/account/usage?months=6')
      .then((answer) => setUsage(answer.data))
      .catch((caught: Error) => setError(caught.message));
  }, [client]);
  return (
    <>
      <h1>Account</h1>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <section className="card tiles" aria-label="Balance">
        <div>
          <span className="muted">Balance</span>
          <strong className="big">{balance ? formatEur(balance.balance) : '…'}</strong>
        </div>
        <div>
          <span className="muted">Free transcriptions left</span>
          <strong className="big">{balance ? balance.freeTranscriptionsRemaining : '…'}</strong>
        </div>
      </section>
      <section className="card" aria-labelledby="usage-title">
        <h2 id="usage-title">Usage per month</h2>
        {usage && (
          <>
            <UsageChart months={usage.months} />
            <div className="table-scroll">
              <table>
                <caption className="visually-hidden">Usage per month</caption>
                <thead>
                  <tr>
                    <th scope="col">Month</th>
                    <th scope="col">Transcriptions</th>
                    <th scope="col">Standard min</th>
                    <th scope="col">Premium min</th>
                    <th scope="col">Cost (EUR)</th>
                  </tr>
                </thead>
                <tbody>
                  {usage.months.map((month) => (
                    <tr key={month.month}>
                      <th scope="row">{month.month}</th>
                      <td>{month.count}</td>
                      <td>{month.standardMinutes.toFixed(1)}</td>
                      <td>{month.premiumMinutes.toFixed(1)}</td>
                      <td>{formatAmount(month.standardCost + month.premiumCost)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p className="muted">
              Total: {usage.summary.totalTranscriptions} transcriptions,{' '}
              {usage.summary.totalMinutes.toFixed(1)} min, {formatEur(usage.summary.totalCost)}
            </p>
          </>
        )}
      </section>
      <WorkspaceSettings />
    </>
  );
}
