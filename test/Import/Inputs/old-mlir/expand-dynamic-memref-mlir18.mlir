// The same for a buffer: memref.dim.
func.func @buffer(%m: memref<?xf32>) -> memref<?x8xf32> {
  %e = memref.expand_shape %m [[0, 1]] : memref<?xf32> into memref<?x8xf32>
  return %e : memref<?x8xf32>
}
