import { randomUUID } from 'node:crypto';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const validation = 'https://errors.transcription.example/problems/validation';
const notFound = 'https://errors.transcription.example/problems/not-found';

describe('Vocabularies', () => {
  let t: TestApp;
  let mine: string;
  let theirs: string;
  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    mine = (await t.createWorkspace({ name: 'Vocab mine' })).apiKey;
    theirs = (await t.createWorkspace({ name: 'Vocab theirs' })).apiKey;
  });
  afterAll(() => t.close());

  const create = (key: string, body: unknown) =>
    t
      .http()
      .post('/v1/vocabularies')
      .set(bearer(key))
      .send(body as object);

  it('creates, reads, lists, updates and deletes', async () => {
    const created = await create(mine, { name: 'Medical', words: ['tachycardia', 'Ibuprofen'] });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      name: 'Medical',
      words: ['tachycardia', 'Ibuprofen'],
      createdOn: expect.any(String),
    });
    expectMatchesSpec(created, 'createVocabulary');
    const id = created.body.data.id;

    const read = await t.http().get(`/v1/vocabularies/${id}`).set(bearer(mine));
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(created.body.data);
    expectMatchesSpec(read, 'getVocabulary');

    const list = await t.http().get('/v1/vocabularies').set(bearer(mine));
    expect(list.status).toBe(200);
    expect(list.body.data.map((v: { id: string }) => v.id)).toContain(id);
    expectMatchesSpec(list, 'listVocabularies');

    const renamed = await t
      .http()
      .put(`/v1/vocabularies/${id}`)
      .set(bearer(mine))
      .send({ name: 'Cardiology' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id, name: 'Cardiology', words: ['tachycardia', 'Ibuprofen'] });
    expectMatchesSpec(renamed, 'updateVocabulary');

    const rewords = await t
      .http()
      .put(`/v1/vocabularies/${id}`)
      .set(bearer(mine))
      .send({ words: ['stent'] });
    expect(rewords.body.data).toMatchObject({ name: 'Cardiology', words: ['stent'] });

    const deleted = await t.http().delete(`/v1/vocabularies/${id}`).set(bearer(mine));
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectMatchesSpec(deleted, 'deleteVocabulary');

    const again = await t.http().delete(`/v1/vocabularies/${id}`).set(bearer(mine));
    expect(again.status).toBe(404);
    expect(again.body.type).toBe(notFound);
    expectMatchesSpec(again, 'deleteVocabulary');
    expect((await t.http().get(`/v1/vocabularies/${id}`).set(bearer(mine))).status).toBe(404);
  });

  it.each([
    ['missing name', { words: ['a'] }, 'name'],
    ['empty name', { name: '', words: ['a'] }, 'name'],
    ['name over 100 characters', { name: 'n'.repeat(101), words: ['a'] }, 'name'],
    ['missing words', { name: 'x' }, 'words'],
    ['no words', { name: 'x', words: [] }, 'words'],
    ['501 words', { name: 'x', words: Array.from({ length: 501 }, (_, i) => `w${i}`) }, 'words'],
    ['an empty word', { name: 'x', words: ['fine', ''] }, 'words'],
    ['a word that is not a string', { name: 'x', words: ['fine', 7] }, 'words'],
    ['a word over 64 characters', { name: 'x', words: ['fine', 'w'.repeat(65)] }, 'words'],
    ['an unknown field', { name: 'x', words: ['a'], extra: true }, 'extra'],
  ])('refuses %s with 422 validation', async (_case, body, field) => {
    const response = await create(mine, body);
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(validation);
    expect(Object.keys(response.body.errors.fieldErrors)).toContain(field);
    expectMatchesSpec(response, 'createVocabulary');
  });

  it('accepts the bounds: 100-character name and 500 words', async () => {
    const response = await create(mine, {
      name: 'n'.repeat(100),
      words: Array.from({ length: 500 }, (_, i) => `w${i}`),
    });
    expect(response.status).toBe(201);
  });

  it('refuses an empty PUT body with 422 validation (formErrors)', async () => {
    const { body } = await create(mine, { name: 'Empty put', words: ['a'] });
    const response = await t.http().put(`/v1/vocabularies/${body.data.id}`).set(bearer(mine)).send({});
    expect(response.status).toBe(422);
    expect(response.body.errors.formErrors).toHaveLength(1);
    expectMatchesSpec(response, 'updateVocabulary');
  });

  it('refuses invalid PUT fields with 422 validation', async () => {
    const { body } = await create(mine, { name: 'Bad put', words: ['a'] });
    const response = await t
      .http()
      .put(`/v1/vocabularies/${body.data.id}`)
      .set(bearer(mine))
      .send({ words: [] });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors.fieldErrors)).toEqual(['words']);
  });

  it('applies the word-length limit on PUT too, and accepts a word of exactly 64 characters', async () => {
    const { body } = await create(mine, { name: 'Long words', words: ['a'] });
    const put = (words: string[]) =>
      t.http().put(`/v1/vocabularies/${body.data.id}`).set(bearer(mine)).send({ words });
    const tooLong = await put(['é'.repeat(65)]);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.type).toBe(validation);
    expect(Object.keys(tooLong.body.errors.fieldErrors)).toEqual(['words']);
    expectMatchesSpec(tooLong, 'updateVocabulary');
    // 64 code points that are 128 UTF-16 units: the limit counts characters.
    const atLimit = await put(['😀'.repeat(64)]);
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.data.words).toEqual(['😀'.repeat(64)]);
  });

  it("another workspace's vocabulary is 404 on read, update and delete and absent from its list", async () => {
    const { body } = await create(mine, { name: 'Private', words: ['secret'] });
    const id = body.data.id;
    for (const response of [
      await t.http().get(`/v1/vocabularies/${id}`).set(bearer(theirs)),
      await t.http().put(`/v1/vocabularies/${id}`).set(bearer(theirs)).send({ name: 'stolen' }),
      await t.http().delete(`/v1/vocabularies/${id}`).set(bearer(theirs)),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.type).toBe(notFound);
    }
    const list = await t.http().get('/v1/vocabularies').set(bearer(theirs));
    expect(list.body.data.map((v: { id: string }) => v.id)).not.toContain(id);
    expect((await t.http().get(`/v1/vocabularies/${id}`).set(bearer(mine))).body.data.name).toBe('Private');
  });

  it('an unknown id is 404', async () => {
    const response = await t
      .http()
      .put(`/v1/vocabularies/${randomUUID()}`)
      .set(bearer(mine))
      .send({ name: 'x' });
    expect(response.status).toBe(404);
    expectMatchesSpec(response, 'updateVocabulary');
  });
});
