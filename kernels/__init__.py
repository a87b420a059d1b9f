"""Numba CUDA kernels for the hot operators, each with a CPU twin (``numba.njit``) that
the tests compare it with.

Modules: ``launch`` (launch configuration, device arrays and strided views),
``elementwise`` (fused elementwise kernels generated from an expression), ``reduce``
(tree reductions in shared memory), ``gemm`` (tiled matrix product; cuBLAS through CuPy
when it is installed), ``gather`` (gather and scatter-add with atomics), ``softmax``
(softmax, log-softmax and cross-entropy along the last axis), ``optim`` (Adam and SGD
updates), ``buckets`` (pack and unpack of gradient buckets).

Nothing here imports ``numba.cuda`` until a kernel module is imported, so that
``NUMBA_ENABLE_CUDASIM=1`` (Numba's CUDA simulator) can still be chosen before then.
Kernels import neither the compiler nor the runtime.
"""
