/* Verbs of the `iolens` command.  Each gets argv with argv[0] = the verb name and
 * returns the process exit status. */
#ifndef IOLENS_TOOLS_H
#define IOLENS_TOOLS_H

int iol_cmd_parse(int argc, char **argv);    /* parse.c   */
int iol_cmd_dxt(int argc, char **argv);      /* dxt.c     */
int iol_cmd_convert(int argc, char **argv);  /* convert.c */
int iol_cmd_run(int argc, char **argv);      /* run.c     */
int iol_cmd_config(int argc, char **argv);   /* config.c  */
int iol_cmd_recover(int argc, char **argv);  /* recover.c */
int iol_cmd_merge(int argc, char **argv);    /* merge.c   */
int iol_cmd_keygen(int argc, char **argv);   /* keygen.c  */

#endif
