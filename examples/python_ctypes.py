"""Calling Kestrel from Python with ctypes.

Every entry point of libdnnl.so.3 is a plain C function over opaque handles
that returns a dnnl_status_t, so a language binding needs nothing but a
foreign-function interface. This script computes y = relu(x W) for a 5x7 by
7x3 matmul with a fused ReLU post-op, using only the C API through ctypes
and Python's standard library, and checks it against a plain loop.

    python3 python_ctypes.py [path/to/libdnnl.so.3]

Memory descriptors are made with explicit strides, so the script needs no
format-tag enum values. The constants below are the values of dnnl.h.
"""
import ctypes
import sys

SUCCESS = 0
CPU = 1                  # dnnl_engine_kind_t: dnnl_cpu
F32 = 3                  # dnnl_data_type_t: dnnl_f32
STREAM_DEFAULT = 1       # dnnl_stream_default_flags
ELTWISE_RELU = 0x20      # dnnl_alg_kind_t: dnnl_eltwise_relu
ARG_SRC, ARG_WEIGHTS, ARG_DST = 1, 33, 17
MAX_NDIMS = 12

Handle = ctypes.c_void_p
Dims = ctypes.c_int64 * MAX_NDIMS


class ExecArg(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_int), ("memory", Handle)]


class Kestrel:
    """The few C functions this script calls, with their C signatures."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        out = ctypes.POINTER(Handle)
        sigs = {
            "dnnl_engine_create": [out, ctypes.c_int, ctypes.c_size_t],
            "dnnl_stream_create": [out, Handle, ctypes.c_uint],
            "dnnl_memory_desc_create_with_strides": [out, ctypes.c_int, Dims, ctypes.c_int, Dims],
            "dnnl_memory_create": [out, Handle, Handle, ctypes.c_void_p],
            "dnnl_post_ops_create": [out],
            "dnnl_post_ops_append_eltwise": [Handle, ctypes.c_int, ctypes.c_float, ctypes.c_float],
            "dnnl_primitive_attr_create": [out],
            "dnnl_primitive_attr_set_post_ops": [Handle, Handle],
            "dnnl_matmul_primitive_desc_create": [out, Handle, Handle, Handle, Handle, Handle,
                                                  Handle],
            "dnnl_primitive_create": [out, Handle],
            "dnnl_primitive_execute": [Handle, Handle, ctypes.c_int, ctypes.POINTER(ExecArg)],
            "dnnl_stream_wait": [Handle],
            "dnnl_primitive_destroy": [Handle],
            "dnnl_primitive_desc_destroy": [Handle],
            "dnnl_primitive_attr_destroy": [Handle],
            "dnnl_post_ops_destroy": [Handle],
            "dnnl_memory_destroy": [Handle],
            "dnnl_memory_desc_destroy": [Handle],
            "dnnl_stream_destroy": [Handle],
            "dnnl_engine_destroy": [Handle],
        }
        for name, argtypes in sigs.items():
            fn = getattr(lib, name)
            fn.argtypes = argtypes
            fn.restype = ctypes.c_int
            setattr(self, name[len("dnnl_"):], self._checked(name, fn))

    @staticmethod
    def _checked(name, fn):
        def call(*args):
            status = fn(*args)
            if status != SUCCESS:
                raise RuntimeError("%s returned status %d" % (name, status))
        return call


def new(fn, *args):
    """Calls a C constructor that returns its handle through the first argument."""
    h = Handle()
    fn(ctypes.byref(h), *args)
    return h


def matrix_md(k, rows, cols):
    dims, strides = Dims(rows, cols), Dims(cols, 1)   # row-major
    return new(k.memory_desc_create_with_strides, 2, dims, F32, strides)


def main(path):
    k = Kestrel(path)
    m, kk, n = 5, 7, 3
    x = [((i * 7) % 11 - 5) * 0.25 for i in range(m * kk)]
    w = [((i * 5) % 13 - 6) * 0.125 for i in range(kk * n)]
    xb = (ctypes.c_float * len(x))(*x)
    wb = (ctypes.c_float * len(w))(*w)
    yb = (ctypes.c_float * (m * n))()

    eng = new(k.engine_create, CPU, 0)
    strm = new(k.stream_create, eng, STREAM_DEFAULT)
    mds = [matrix_md(k, m, kk), matrix_md(k, kk, n), matrix_md(k, m, n)]
    mems = [new(k.memory_create, md, eng, ctypes.cast(buf, ctypes.c_void_p))
            for md, buf in zip(mds, (xb, wb, yb))]
    ops = new(k.post_ops_create)
    k.post_ops_append_eltwise(ops, ELTWISE_RELU, 0.0, 0.0)
    attr = new(k.primitive_attr_create)
    k.primitive_attr_set_post_ops(attr, ops)
    pd = new(k.matmul_primitive_desc_create, eng, mds[0], mds[1], None, mds[2], attr)
    prim = new(k.primitive_create, pd)
    args = (ExecArg * 3)(ExecArg(ARG_SRC, mems[0]), ExecArg(ARG_WEIGHTS, mems[1]),
                         ExecArg(ARG_DST, mems[2]))
    k.primitive_execute(prim, strm, 3, args)
    k.stream_wait(strm)

    # Every input is a multiple of 1/8 with a small numerator, so each
    # product and sum is exact in float: the results must match exactly.
    bad = 0
    for i in range(m):
        for j in range(n):
            want = max(0.0, sum(x[i * kk + t] * w[t * n + j] for t in range(kk)))
            if yb[i * n + j] != want:
                bad += 1
    print("relu(x W) for %dx%d by %dx%d through ctypes: %d of %d outputs off"
          % (m, kk, kk, n, bad, m * n))

    k.primitive_destroy(prim)
    k.primitive_desc_destroy(pd)
    k.primitive_attr_destroy(attr)
    k.post_ops_destroy(ops)
    for h in mems:
        k.memory_destroy(h)
    for h in mds:
        k.memory_desc_destroy(h)
    k.stream_destroy(strm)
    k.engine_destroy(eng)
    print("PASSED" if bad == 0 else "FAILED")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "libdnnl.so.3"))
