/* cli/cli.h - the weir command's subcommands. */
#ifndef WEIR_CLI_H
#define WEIR_CLI_H

int weir_cli_checkpoints(int argc, char **argv);
int weir_cli_inspect(int argc, char **argv);
int weir_cli_run(int argc, char **argv);
int weir_cli_explain(int argc, char **argv);

/* Exit codes of the weir command. */
enum {
    WEIR_EXIT_OK = 0,
    WEIR_EXIT_FAILED = 1,  /* the job failed while running */
    WEIR_EXIT_USAGE = 2,   /* bad command line */
    WEIR_EXIT_INVALID = 3, /* the job does not parse or plan */
    WEIR_EXIT_IO = 4,      /* a file could not be read or written */
};

#endif
