"""Running compiled programs: buffers and their reuse, kernel calls on a thread pool, BLAS
calls, guard checks, and the on-disk compile cache."""
