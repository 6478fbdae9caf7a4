/**
 * An inverted-file index over item vectors: k-means cells, so that a query scores the cells' centroids and then
 * only the items of the best few cells (a few thousand dot products instead of one per item in the catalog).
 * The model stores its vectors cell by cell, so a cell is one sequential run of rows.
 */
export interface Ivf {
  cells: number;
  centroids: Float32Array;
  /** Rows of cell c: offsets[c] .. offsets[c+1] of the model's search order. */
  offsets: Int32Array;
}
