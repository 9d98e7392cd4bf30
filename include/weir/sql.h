/*
 * weir/sql.h - parsing SQL scripts in the Flink SQL dialect.
 *
 * A script is a sequence of statements separated by ';' (the last ';' is
 * optional). weir_sql_parse() turns it into a weir_sql_script that owns every
 * node of its syntax tree in one arena: weir_sql_script_destroy() frees all
 * of it at once, and every pointer obtained from a script (statements,
 * strings, source text) is valid until then.
 *
 * Errors are reported as one line,
 *     FILE:LINE:COL: error: expected X, found Y
 * in weir_error.message, with the code WEIR_EPARSE (WEIR_ENOMEM when an
 * allocation fails). LINE and COL are 1-based; COL counts characters (UTF-8
 * code points), so it matches what an editor shows; a tab counts as one.
 *
 * The parser never recurses deeper than WEIR_SQL_MAX_NESTING levels of
 * parentheses, subqueries and nested types, and never builds a tree taller
 * than WEIR_SQL_MAX_HEIGHT nodes, so code that walks the tree recursively
 * needs a bounded stack. Input beyond those limits is a parse error.
 *
 * The syntax tree itself (for the planner) is in src/sql/ast.h; this header
 * is the stable surface: parse, inspect statements, print them.
 */
#ifndef WEIR_SQL_H
#define WEIR_SQL_H

#include "weir/buf.h"
#include "weir/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A position in the script text. */
typedef struct weir_sql_loc {
    uint32_t line;   /* 1-based line */
    uint32_t col;    /* 1-based column, in characters */
    uint32_t offset; /* 0-based byte offset */
} weir_sql_loc;

#define WEIR_SQL_MAX_NESTING 200
#define WEIR_SQL_MAX_HEIGHT 1000
/* Offsets are 32-bit; larger scripts are refused. */
#define WEIR_SQL_MAX_SCRIPT_BYTES ((size_t)1 << 30)

typedef struct weir_sql_script weir_sql_script;
typedef struct weir_sql_stmt weir_sql_stmt;

typedef enum weir_sql_stmt_kind {
    WEIR_SQL_STMT_CREATE_TABLE,    /* CREATE [TEMPORARY] TABLE ... */
    WEIR_SQL_STMT_CREATE_VIEW,     /* CREATE [TEMPORARY] VIEW ... AS query */
    WEIR_SQL_STMT_CREATE_FUNCTION, /* CREATE [TEMPORARY [SYSTEM]] FUNCTION */
    WEIR_SQL_STMT_DROP,            /* DROP TABLE / VIEW / FUNCTION / DATABASE / CATALOG */
    WEIR_SQL_STMT_INSERT,          /* INSERT INTO|OVERWRITE t ... query */
    WEIR_SQL_STMT_STATEMENT_SET,   /* EXECUTE STATEMENT SET BEGIN ... END,
                                      or BEGIN STATEMENT SET; ...; END */
    WEIR_SQL_STMT_SET,             /* SET ['key' = 'value'] */
    WEIR_SQL_STMT_RESET,           /* RESET ['key'] */
    WEIR_SQL_STMT_EXPLAIN,         /* EXPLAIN [PLAN FOR | details] stmt */
    WEIR_SQL_STMT_QUERY,           /* a bare SELECT / VALUES / WITH query */
    WEIR_SQL_STMT_SHOW,            /* SHOW TABLES | VIEWS | FUNCTIONS | ... */
    WEIR_SQL_STMT_DESCRIBE,        /* DESCRIBE | DESC name */
    WEIR_SQL_STMT_USE,             /* USE [CATALOG] name */
    WEIR_SQL_STMT_ALTER,           /* ALTER TABLE / VIEW / DATABASE / CATALOG */
    WEIR_SQL_STMT_CREATE_CATALOG,  /* CREATE CATALOG c WITH (...) */
    WEIR_SQL_STMT_CREATE_DATABASE, /* CREATE DATABASE [c.]db ... */
    WEIR_SQL_STMT_STOP_JOB,        /* STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN] */
} weir_sql_stmt_kind;

/*
 * Parses len bytes of text (need not be NUL-terminated; must be UTF-8).
 * file names the script in error messages (NULL: "<input>"); it is copied.
 * On success *out receives a script (transferred to the caller). On failure
 * *out is NULL, err (if not NULL) holds the message and err_loc (if not
 * NULL) the position it refers to; nothing is leaked.
 */
int weir_sql_parse(const char *file, const char *text, size_t len,
                   weir_sql_script **out, weir_error *err,
                   weir_sql_loc *err_loc);
void weir_sql_script_destroy(weir_sql_script *s);

/* The file name given to weir_sql_parse (valid until destroy). */
const char *weir_sql_script_file(const weir_sql_script *s);
/* The script text, NUL-terminated (valid until destroy). */
const char *weir_sql_script_text(const weir_sql_script *s, size_t *len);
size_t weir_sql_script_count(const weir_sql_script *s);
/* The i-th statement (borrowed, valid until destroy), or NULL. */
const weir_sql_stmt *weir_sql_script_stmt(const weir_sql_script *s, size_t i);

weir_sql_stmt_kind weir_sql_stmt_get_kind(const weir_sql_stmt *st);
/* "CREATE TABLE", "INSERT", ... (static string). */
const char *weir_sql_stmt_kind_name(weir_sql_stmt_kind kind);
/* Where the statement starts. */
weir_sql_loc weir_sql_stmt_loc(const weir_sql_stmt *st);
/*
 * The statement's own text in the script, without the terminating ';'
 * (borrowed, not NUL-terminated, valid until destroy).
 */
const char *weir_sql_stmt_text(const weir_sql_stmt *st, size_t *len);

/*
 * Appends the statement as canonical SQL (one line, keywords in upper case,
 * identifiers quoted only where needed, no ';'). Parsing the result and
 * printing it again gives the same text.
 */
int weir_sql_format_stmt(const weir_sql_stmt *st, weir_buf *out);
/* Appends every statement in canonical form, each followed by ";\n". */
int weir_sql_format_script(const weir_sql_script *s, weir_buf *out);
/* Appends an indented tree of the statement's nodes with their positions. */
int weir_sql_dump_stmt(const weir_sql_stmt *st, weir_buf *out);

#ifdef __cplusplus
}
#endif
#endif
