import {
  averageLinkage,
  cosineDistances,
  cutAtDistance,
  cutIntoClusters,
  euclideanDistances,
} from './agglomerative-clustering';

/** Deterministic pseudo-random numbers so failures reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 4294967296;
    return state / 4294967296;
  };
}

function blobs(centres: number[][], perBlob: number, spread: number, seed = 1): Float32Array[] {
  const next = random(seed);
  return centres.flatMap((centre) =>
    Array.from({ length: perBlob }, () => Float32Array.from(centre, (x) => x + (next() - 0.5) * spread)),
  );
}

/** Textbook O(n³) average linkage: merge heights to compare against. */
function naiveHeights(points: Float32Array[]): number[] {
  const distance = euclideanDistances(points);
  let clusters = points.map((_, i) => [i]);
  const heights: number[] = [];
  while (clusters.length > 1) {
    let best = [0, 1];
    let bestValue = Infinity;
    for (let a = 0; a < clusters.length; a++) {
      for (let b = a + 1; b < clusters.length; b++) {
        let sum = 0;
        for (const i of clusters[a])
          for (const j of clusters[b]) sum += distance.values[i * points.length + j];
        const value = sum / (clusters[a].length * clusters[b].length);
        if (value < bestValue) [bestValue, best] = [value, [a, b]];
      }
    }
    heights.push(bestValue);
    const merged = [...clusters[best[0]], ...clusters[best[1]]];
    clusters = clusters.filter((_, index) => index !== best[0] && index !== best[1]).concat([merged]);
  }
  return heights;
}

describe('agglomerative clustering', () => {
  it('recovers three well separated blobs when cut at three clusters', () => {
    const points = blobs(
      [
        [0, 0],
        [10, 0],
        [0, 10],
      ],
      8,
      1,
    );
    const labels = cutIntoClusters(averageLinkage(euclideanDistances(points)), 3);
    for (let blob = 0; blob < 3; blob++) {
      const group = labels.slice(blob * 8, blob * 8 + 8);
      expect(new Set(group).size).toBe(1);
    }
    expect(new Set(labels).size).toBe(3);
    expect(labels[0]).toBe(0);
  });

  it('stops at a distance threshold between the within-blob and between-blob scales', () => {
    const points = blobs(
      [
        [0, 0],
        [10, 0],
      ],
      6,
      1,
    );
    const dendrogram = averageLinkage(euclideanDistances(points));
    expect(new Set(cutAtDistance(dendrogram, 3)).size).toBe(2);
    expect(new Set(cutAtDistance(dendrogram, 50)).size).toBe(1);
    expect(new Set(cutAtDistance(dendrogram, 0)).size).toBe(12);
  });

  it('matches the textbook algorithm merge for merge', () => {
    const points = blobs(
      [
        [0, 0, 0],
        [3, 1, 0],
        [1, 4, 2],
      ],
      5,
      4,
      7,
    );
    const heights = averageLinkage(euclideanDistances(points)).merges.map((merge) => merge.distance);
    const expected = naiveHeights(points).sort((a, b) => a - b);
    heights.forEach((height, i) => expect(height).toBeCloseTo(expected[i], 4));
  });

  it('gives non-decreasing merge heights and sizes that add up', () => {
    const points = blobs(
      [
        [0, 0],
        [5, 5],
      ],
      10,
      6,
      3,
    );
    const { merges } = averageLinkage(euclideanDistances(points));
    expect(merges).toHaveLength(19);
    for (let i = 1; i < merges.length; i++)
      expect(merges[i].distance).toBeGreaterThanOrEqual(merges[i - 1].distance);
    expect(merges[merges.length - 1].size).toBe(20);
  });

  it('measures cosine distance by angle, not length', () => {
    const { values } = cosineDistances([Float32Array.of(1, 0), Float32Array.of(5, 0), Float32Array.of(0, 2)]);
    expect(values[1]).toBeCloseTo(0, 6);
    expect(values[2]).toBeCloseTo(1, 6);
  });

  it('handles one point', () => {
    const dendrogram = averageLinkage(euclideanDistances([Float32Array.of(1)]));
    expect(dendrogram.merges).toHaveLength(0);
    expect(cutIntoClusters(dendrogram, 3)).toEqual([0]);
  });
});
