/* Placeholder until the convert verb lands; exits with a clear message. */
#include <stdio.h>
#include "tools.h"

int iol_cmd_convert(int argc, char **argv)
{
    fprintf(stderr, "iolens convert: not available in this build yet\n");
    return 2;
}
