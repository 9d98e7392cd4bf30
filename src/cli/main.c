/* cli/main.c - the weir command: dispatches to subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "weir/weir.h"

static const char USAGE[] =
    "usage: weir COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  run JOB.sql          run a SQL job (-D key=value sets configuration)\n"
    "  explain JOB.sql      print the plan of a SQL job without running it\n"
    "  checkpoints DIR      list the checkpoints in DIR\n"
    "  inspect PATH         show what a checkpoint or savepoint holds\n"
    "  savepoint PID        take a savepoint of a running job (--stop: and stop it)\n"
    "  stop PID             stop a running job as Ctrl-C does (--drain: fire every window)\n"
    "\n"
    "weir COMMAND --help shows the options of a command.\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(USAGE, stderr);
        return WEIR_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(USAGE, stdout);
        return WEIR_EXIT_OK;
    }
    if (!strcmp(cmd, "run"))
        return weir_cli_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "explain"))
        return weir_cli_explain(argc - 1, argv + 1);
    if (!strcmp(cmd, "checkpoints"))
        return weir_cli_checkpoints(argc - 1, argv + 1);
    if (!strcmp(cmd, "inspect"))
        return weir_cli_inspect(argc - 1, argv + 1);
    if (!strcmp(cmd, "savepoint"))
        return weir_cli_savepoint(argc - 1, argv + 1);
    if (!strcmp(cmd, "stop"))
        return weir_cli_stop(argc - 1, argv + 1);
    fprintf(stderr, "weir: unknown command '%s'\n\n%s", cmd, USAGE);
    return WEIR_EXIT_USAGE;
}
