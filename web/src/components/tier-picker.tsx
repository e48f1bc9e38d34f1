import { useEffect, useState } from 'react';
import { MODELS, Tier, TierList } from '../api/types';
import { sameEngineNote, tierDescription, tierOptionLabel } from '../logic/tier-labels';
import { useClient } from '../session-context';

/**
 * The upload's Model field: each tier with the engine and model that serve it on this server (GET /v1/tiers),
 * an unavailable one marked and not offered, and under it what the chosen tier runs, so a user sees that a
 * premium tier running the same PocketSphinx as standard gives the same text. Without the answer, the bare
 * tier names.
 */
export function TierPicker({ id }: { id: string }) {
  const client = useClient();
  const [tiers, setTiers] = useState<Tier[] | null>(null);
  useEffect(() => {
    let stale = false;
    client
      .json<TierList>('/v1/tiers')
      .then((answer) => !stale && setTiers(answer.data))
      .catch(() => !stale && setTiers(null));
    return () => {
      stale = true;
    };
  }, [client]);
  return <TierSelect id={id} tiers={tiers} />;
}

export function TierSelect({ id, tiers }: { id: string; tiers: readonly Tier[] | null }) {
  const [chosen, setChosen] = useState<string>('standard');
  const current = tiers?.find((tier) => tier.tier === chosen) ?? null;
  const note = current && tiers ? sameEngineNote(current, tiers) : null;
  return (
    <div className="field wide">
      <label htmlFor={id}>Model</label>
      <select
        id={id}
        name="model"
        value={chosen}
        onChange={(event) => setChosen(event.currentTarget.value)}
        aria-describedby={current ? `${id}-engine` : undefined}
      >
        {tiers
          ? tiers.map((tier) => (
              <option key={tier.tier} value={tier.tier} disabled={!tier.available}>
                {tierOptionLabel(tier)}
              </option>
            ))
          : MODELS.map((model) => <option key={model}>{model}</option>)}
      </select>
      {current && (
        <p id={`${id}-engine`} className="muted field-note" data-testid="tier-engine">
          {tierDescription(current)}
          {note && ` ${note}`}
        </p>
      )}
    </div>
  );
}
