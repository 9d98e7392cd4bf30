/* cli/main.c - the weir command: dispatches to subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "weir/weir.h"

#ifndef WEIR_VERSION_STRING
#define WEIR_VERSION_STRING "unknown"
#endif

static const char USAGE[] =
    "usage: weir COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  run JOB.sql          run a SQL job (-D key=value sets configuration)\n"
    "  explain JOB.sql      print the plan of a SQL job without running it\n"
    "  checkpoints DIR      list the checkpoints in DIR\n"
    "  inspect PATH         show what a checkpoint or savepoint holds\n"
    "  list                 list the running jobs of this machine\n"
    "  savepoint JOB        take a savepoint of a running job and print its path\n"
    "                       (--stop: and stop the job)\n"
    "  stop JOB             stop a running job as Ctrl-C does (--drain: fire every window)\n"
    "  cancel JOB           stop a running job at once, without a final checkpoint\n"
    "  savepoint-tool ...   list, drop or rename operator state in a savepoint\n"
    "\n"
    "JOB is a process id or a pipeline.name, as weir list shows them.\n"
    "weir --version prints the version.\n"
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
    if (!strcmp(cmd, "cancel"))
        return weir_cli_cancel(argc - 1, argv + 1);
    if (!strcmp(cmd, "savepoint-tool"))
        return weir_cli_savepoint_tool(argc - 1, argv + 1);
    if (!strcmp(cmd, "list"))
        return weir_cli_list(argc - 1, argv + 1);
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) {
        printf("weir %s\n", WEIR_VERSION_STRING);
        return WEIR_EXIT_OK;
    }
    fprintf(stderr, "weir: unknown command '%s'\n\n%s", cmd, USAGE);
    return WEIR_EXIT_USAGE;
}
