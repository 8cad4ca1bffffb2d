/* Placeholder until the run verb lands; exits with a clear message. */
#include <stdio.h>
#include "tools.h"

int iol_cmd_run(int argc, char **argv)
{
    fprintf(stderr, "iolens run: not available in this build yet\n");
    return 2;
}
