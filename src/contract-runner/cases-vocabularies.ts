import type { RunContext } from './run-context';
import type { RunState } from './run-state';

/** Vocabularies: create → get → update → list, and the refusals of bad bodies. Every mode (its own object). */
export async function vocabularyCases(run: RunContext, state: RunState): Promise<void> {
  await run.case('createVocabulary', 'saves a vocabulary (201)', async (s) => {
    const answer = await s.call('createVocabulary', {
      credential: s.credential('key'),
      json: { name: state.tag, words: ['Kubernetes', 'Grüezi', 'Säntis'] },
    });
    s.expect(answer, 201);
    const id = (answer.body as { data: { id: string } }).data.id;
    state.vocabularyId = id;
    run.onCleanup(`delete vocabulary ${id}`, async () => {
      await run.case('deleteVocabulary', 'deletes the run’s vocabulary (204); again is 404', async (s) => {
        s.expect(await s.call('deleteVocabulary', { credential: s.credential('key'), path: { id } }), 204);
        s.expect(
          await s.call('deleteVocabulary', { credential: s.credential('key'), path: { id } }),
          404,
          'not-found',
        );
        s.expect(
          await s.call('getVocabulary', { credential: s.credential('key'), path: { id } }),
          404,
          'not-found',
        );
      });
    });
  });
  await run.case('createVocabulary', 'refuses a broken body: 400, 415, 422', async (s) => {
    await s.expectRefusals('createVocabulary', s.credential('key'), [
      [{ raw: { body: '{"name": ', contentType: 'application/json' } }, 400, 'malformed-request'],
      [{ raw: { body: 'name=x', contentType: 'text/plain' } }, 415, 'unsupported-media-type'],
      [{ json: { name: state.tag, words: [] } }, 422, 'validation'],
      [{ json: { name: state.tag, words: ['x'.repeat(65)] } }, 422, 'validation'],
    ]);
  });

  await run.case('listVocabularies', 'lists the workspace’s vocabularies (with the run’s)', async (s) => {
    const answer = await s.call('listVocabularies', { credential: s.credential('key') });
    s.expect(answer, 200);
    const ids = ((answer.body as { data?: Array<{ id: string }> }).data ?? []).map((item) => item.id);
    const own = state.vocabularyId;
    s.check(own === undefined || ids.includes(own), `$.data: the vocabulary ${own} is not listed`);
  });

  const id = state.vocabularyId;
  if (id === undefined) {
    for (const operationId of ['getVocabulary', 'updateVocabulary', 'deleteVocabulary']) {
      run.skipped(operationId, 'on the run’s vocabulary', 'createVocabulary did not create one');
    }
    return;
  }
  await run.case('getVocabulary', 'reads the vocabulary it created', async (s) => {
    const answer = await s.call('getVocabulary', { credential: s.credential('key'), path: { id } });
    s.expect(answer, 200);
    s.check((answer.body as { data: { id: string } }).data.id === id, '$.data.id is not the id created');
  });
  await run.case('updateVocabulary', 'replaces the words (200); an empty body is 422', async (s) => {
    const answer = await s.call('updateVocabulary', {
      credential: s.credential('key'),
      path: { id },
      json: { words: ['go', 'forward', 'meters'] },
    });
    s.expect(answer, 200);
    s.expect(
      await s.call('updateVocabulary', { credential: s.credential('key'), path: { id }, json: {} }),
      422,
      'validation',
    );
  });
}
