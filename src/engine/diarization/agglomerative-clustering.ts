/**
 * Average-linkage agglomerative clustering. The dendrogram is built with the nearest-neighbour-chain algorithm
 * (O(n²) time and memory), valid because average linkage is reducible; merges are then sorted by height so the
 * tree can be cut at a cluster count or at a distance.
 */

export interface Merge {
  /** Cluster ids: 0..n-1 are the points, n+i is the cluster created by merge i. */
  left: number;
  right: number;
  distance: number;
  size: number;
}

export interface Dendrogram {
  readonly points: number;
  /** n-1 merges in non-decreasing distance. */
  readonly merges: Merge[];
}

/** Symmetric n×n distance matrix stored row-major. */
export interface DistanceMatrix {
  readonly size: number;
  readonly values: Float32Array;
}

export function cosineDistances(vectors: readonly Float32Array[]): DistanceMatrix {
  const size = vectors.length;
  const norms = vectors.map((vector) => Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1);
  const values = new Float32Array(size * size);
  for (let i = 0; i < size; i++) {
    for (let j = i + 1; j < size; j++) {
      const [a, b] = [vectors[i], vectors[j]];
      let dot = 0;
      for (let d = 0; d < a.length; d++) dot += a[d] * b[d];
      const distance = 1 - dot / (norms[i] * norms[j]);
      values[i * size + j] = distance;
      values[j * size + i] = distance;
    }
  }
  return { size, values };
}

export function euclideanDistances(vectors: readonly Float32Array[]): DistanceMatrix {
  const size = vectors.length;
  const values = new Float32Array(size * size);
  for (let i = 0; i < size; i++) {
    for (let j = i + 1; j < size; j++) {
      const [a, b] = [vectors[i], vectors[j]];
      let sum = 0;
      for (let d = 0; d < a.length; d++) sum += (a[d] - b[d]) ** 2;
      const distance = Math.sqrt(sum);
      values[i * size + j] = distance;
      values[j * size + i] = distance;
    }
  }
  return { size, values };
}

/** Builds the average-linkage dendrogram. The matrix is consumed (overwritten) to save a copy on long files. */
export function averageLinkage(matrix: DistanceMatrix): Dendrogram {
  const n = matrix.size;
  const d = matrix.values;
  const active = new Uint8Array(n).fill(1);
  const size = new Uint32Array(n).fill(1);
  // The slot of a live cluster holds its current id (a point id or n + merge index).
  const id = Int32Array.from({ length: n }, (_, i) => i);
  const raw: Merge[] = [];
  const chain: number[] = [];
  let remaining = n;
  while (remaining > 1) {
    if (chain.length === 0) chain.push(active.indexOf(1));
    for (;;) {
      const a = chain[chain.length - 1];
      const previous = chain.length > 1 ? chain[chain.length - 2] : -1;
      // Ties favour the previous chain element so the chain always terminates.
      let best = previous;
      let bestDistance = previous >= 0 ? d[a * n + previous] : Infinity;
      for (let j = 0; j < n; j++) {
        if (!active[j] || j === a) continue;
        const value = d[a * n + j];
        if (value < bestDistance) {
          bestDistance = value;
          best = j;
        }
      }
      if (best === previous) break;
      chain.push(best);
    }
    const b = chain.pop() as number;
    const a = chain.pop() as number;
    const distance = d[a * n + b];
    // Lance–Williams update for average linkage; the merged cluster lives in slot a.
    const [sa, sb] = [size[a], size[b]];
    for (let j = 0; j < n; j++) {
      if (!active[j] || j === a || j === b) continue;
      const value = (sa * d[a * n + j] + sb * d[b * n + j]) / (sa + sb);
      d[a * n + j] = value;
      d[j * n + a] = value;
    }
    raw.push({ left: id[a], right: id[b], distance, size: sa + sb });
    active[b] = 0;
    size[a] = sa + sb;
    id[a] = n + raw.length - 1;
    remaining--;
  }
  return { points: n, merges: relabelSorted(n, raw) };
}

/** Sorts merges by height and renumbers the created clusters to match the new order. */
function relabelSorted(n: number, raw: Merge[]): Merge[] {
  const order = raw.map((_, i) => i).sort((x, y) => raw[x].distance - raw[y].distance || x - y);
  const renamed = new Map<number, number>();
  order.forEach((oldIndex, newIndex) => renamed.set(n + oldIndex, n + newIndex));
  const rename = (cluster: number): number => (cluster < n ? cluster : (renamed.get(cluster) as number));
  return order.map((oldIndex) => ({
    ...raw[oldIndex],
    left: rename(raw[oldIndex].left),
    right: rename(raw[oldIndex].right),
  }));
}

/** Applies the first `count` merges; labels are 0..k-1 numbered by first point. */
function labelsAfter(dendrogram: Dendrogram, count: number): number[] {
  const { points, merges } = dendrogram;
  const parent = Int32Array.from({ length: 2 * points }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  for (let i = 0; i < count; i++) {
    const merged = points + i;
    parent[find(merges[i].left)] = merged;
    parent[find(merges[i].right)] = merged;
  }
  const names = new Map<number, number>();
  const labels: number[] = [];
  for (let p = 0; p < points; p++) {
    const root = find(p);
    if (!names.has(root)) names.set(root, names.size);
    labels.push(names.get(root) as number);
  }
  return labels;
}

export function cutIntoClusters(dendrogram: Dendrogram, clusters: number): number[] {
  const k = Math.max(1, Math.min(clusters, dendrogram.points));
  return labelsAfter(dendrogram, dendrogram.points - k);
}

/** Keeps merging while the merge distance is below `threshold`. */
export function cutAtDistance(dendrogram: Dendrogram, threshold: number): number[] {
  const count = dendrogram.merges.filter((merge) => merge.distance < threshold).length;
  return labelsAfter(dendrogram, count);
}
