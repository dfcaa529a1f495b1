"""Loads lib/.libs/libdnnl.so.3 with ctypes, as a Python binding would, and
checks a few entry points of the C ABI. Prints "N passed, M failed"."""
import ctypes
import sys

DNNL_SUCCESS = 0
DNNL_INVALID_ARGUMENTS = 2
DNNL_CPU = 1          # dnnl_engine_kind_t
DNNL_F32 = 3          # dnnl_data_type_t
DNNL_BF16 = 2
DNNL_RUNTIME_TBB = 4
MAX_NDIMS = 12


class Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int),
                ("patch", ctypes.c_int), ("hash", ctypes.c_char_p),
                ("cpu_runtime", ctypes.c_uint), ("gpu_runtime", ctypes.c_uint)]


passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def main(path, tags):
    lib = ctypes.CDLL(path)
    lib.dnnl_version.restype = ctypes.POINTER(Version)
    lib.dnnl_engine_create.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                                       ctypes.c_size_t]
    lib.dnnl_engine_destroy.argtypes = [ctypes.c_void_p]
    lib.dnnl_engine_get_count.argtypes = [ctypes.c_int]
    lib.dnnl_engine_get_count.restype = ctypes.c_size_t
    dims_t = ctypes.c_int64 * MAX_NDIMS
    lib.dnnl_memory_desc_create_with_tag.argtypes = [
        ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, dims_t, ctypes.c_int, ctypes.c_int]
    lib.dnnl_memory_desc_get_size.argtypes = [ctypes.c_void_p]
    lib.dnnl_memory_desc_get_size.restype = ctypes.c_size_t
    lib.dnnl_memory_desc_destroy.argtypes = [ctypes.c_void_p]
    lib.dnnl_status2str.argtypes = [ctypes.c_int]
    lib.dnnl_status2str.restype = ctypes.c_char_p

    v = lib.dnnl_version().contents
    check(v.major == 3, "version major %d" % v.major)
    check(v.cpu_runtime == DNNL_RUNTIME_TBB, "cpu runtime %d" % v.cpu_runtime)
    check(v.hash is not None and len(v.hash) > 0, "version hash")

    check(lib.dnnl_engine_get_count(DNNL_CPU) == 1, "one CPU engine")
    eng = ctypes.c_void_p()
    check(lib.dnnl_engine_create(ctypes.byref(eng), DNNL_CPU, 0) == DNNL_SUCCESS,
          "engine create")
    check(bool(eng.value), "engine handle")
    check(lib.dnnl_engine_create(ctypes.byref(eng), DNNL_CPU, 5) == DNNL_INVALID_ARGUMENTS,
          "engine index 5 is invalid")
    check(lib.dnnl_engine_create(None, DNNL_CPU, 0) == DNNL_INVALID_ARGUMENTS,
          "NULL engine output is invalid")
    check(lib.dnnl_engine_destroy(eng) == DNNL_SUCCESS, "engine destroy")

    # nchw 2x3x4x5 f32: 480 bytes; nChw16c pads C to 16: 2*16*4*5*4 = 2560;
    # bf16 halves those.
    cases = [("nchw", DNNL_F32, 480), ("nChw16c", DNNL_F32, 2560),
             ("nchw", DNNL_BF16, 240), ("nChw16c", DNNL_BF16, 1280)]
    for tag, dt, want in cases:
        md = ctypes.c_void_p()
        st = lib.dnnl_memory_desc_create_with_tag(ctypes.byref(md), 4, dims_t(2, 3, 4, 5),
                                                  dt, tags[tag])
        check(st == DNNL_SUCCESS, "md create %s" % tag)
        size = lib.dnnl_memory_desc_get_size(md)
        check(size == want, "size of %s dt %d is %d, want %d" % (tag, dt, size, want))
        check(lib.dnnl_memory_desc_destroy(md) == DNNL_SUCCESS, "md destroy")
    md = ctypes.c_void_p()
    st = lib.dnnl_memory_desc_create_with_tag(ctypes.byref(md), 13, dims_t(), DNNL_F32,
                                              tags["nchw"])
    check(st == DNNL_INVALID_ARGUMENTS, "13 dims are invalid")
    check(lib.dnnl_status2str(DNNL_SUCCESS) == b"success", "status2str")

    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    # argv: library path, then NAME=VALUE for the format tags used, as the
    # shell wrapper reads them from dnnl_types.h.
    tag_values = dict(a.split("=", 1) for a in sys.argv[2:])
    sys.exit(main(sys.argv[1], {k: int(v) for k, v in tag_values.items()}))
