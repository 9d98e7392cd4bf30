/* cli/main.c - the weir command. */
#include <stdio.h>
#include <string.h>

#include "weir/weir.h"

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        printf("usage: weir COMMAND [ARGS]\n");
        return argc < 2 ? 2 : 0;
    }
    fprintf(stderr, "weir: unknown command '%s'\n", argv[1]);
    return 2;
}
