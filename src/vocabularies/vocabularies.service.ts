import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ProblemException } from '../common/problem/problem.exception';
import { CreateVocabularyDto, UpdateVocabularyDto } from './vocabulary.dto';
import { Vocabulary } from './vocabulary.entity';
import type { Schema, SerializesTo } from '../openapi/contract-types';

export type VocabularyView = SerializesTo<Schema<'Vocabulary'>>;

export function toVocabularyView(vocabulary: Vocabulary): VocabularyView {
  return {
    id: vocabulary.id,
    name: vocabulary.name,
    words: vocabulary.words,
    createdOn: vocabulary.createdOn,
  };
}

/** Every method takes the workspace first: another workspace's vocabulary simply does not exist. */
@Injectable()
export class VocabulariesService {
  constructor(@InjectRepository(Vocabulary) private readonly vocabularies: Repository<Vocabulary>) {}

  list(workspaceId: string): Promise<Vocabulary[]> {
    return this.vocabularies.find({ where: { workspaceId }, order: { createdOn: 'DESC', id: 'DESC' } });
  }

  async get(workspaceId: string, id: string): Promise<Vocabulary> {
    const vocabulary = await this.vocabularies.findOne({ where: { workspaceId, id } });
    if (!vocabulary) throw ProblemException.notFound('The vocabulary');
    return vocabulary;
  }

  /** For uploads: null instead of a 404, so the caller can answer a validation problem on the field. */
  find(workspaceId: string, id: string): Promise<Vocabulary | null> {
    return this.vocabularies.findOne({ where: { workspaceId, id } });
  }

  create(workspaceId: string, input: CreateVocabularyDto): Promise<Vocabulary> {
    return this.vocabularies.save(
      this.vocabularies.create({ workspaceId, name: input.name, words: input.words }),
    );
  }

  async update(workspaceId: string, id: string, input: UpdateVocabularyDto): Promise<Vocabulary> {
    if (input.name === undefined && input.words === undefined) {
      throw ProblemException.validation({ formErrors: ['Send at least one of `name` and `words`.'] });
    }
    const vocabulary = await this.get(workspaceId, id);
    if (input.name !== undefined) vocabulary.name = input.name;
    if (input.words !== undefined) vocabulary.words = input.words;
    return this.vocabularies.save(vocabulary);
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    const result = await this.vocabularies.delete({ workspaceId, id });
    if (!result.affected) throw ProblemException.notFound('The vocabulary');
  }
}
