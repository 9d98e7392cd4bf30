/*
 * cmake/shared_lib.c - the one source of the libweir.so target. Its code is
 * the whole of libweir.a (linked with --whole-archive), compiled once as
 * position-independent code; this file only gives the target a source.
 */
typedef int weir__shared_lib_unit;
