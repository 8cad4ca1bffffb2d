/* Placeholder until the config verb lands; exits with a clear message. */
#include <stdio.h>
#include "tools.h"

int iol_cmd_config(int argc, char **argv)
{
    fprintf(stderr, "iolens config: not available in this build yet\n");
    return 2;
}
