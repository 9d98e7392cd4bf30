/* util/error.c - error names and detailed error messages. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "weir/common.h"

const char *weir_strerror(int code)
{
    switch (code) {
    case WEIR_OK: return "success";
    case WEIR_EINVAL: return "invalid argument";
    case WEIR_ENOMEM: return "out of memory";
    case WEIR_EIO: return "I/O error";
    case WEIR_EPARSE: return "parse error";
    case WEIR_ENOTFOUND: return "not found";
    case WEIR_EEXIST: return "already exists";
    case WEIR_EOF: return "end of input";
    case WEIR_EAGAIN: return "try again";
    case WEIR_ECANCELED: return "canceled";
    case WEIR_EUNSUPPORTED: return "not supported";
    case WEIR_ECORRUPT: return "corrupt data";
    case WEIR_ESTATE: return "invalid state";
    case WEIR_ENOSPC: return "no space left on device";
    case WEIR_ETIMEDOUT: return "timed out";
    case WEIR_EPLAN: return "cannot plan query";
    case WEIR_EUSER: return "user function failed";
    default: return "unknown error";
    }
}

int weir_error_set(weir_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

void weir_error_clear(weir_error *err)
{
    if (err) {
        err->code = 0;
        err->message[0] = '\0';
    }
}
