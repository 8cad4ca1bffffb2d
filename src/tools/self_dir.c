/* self_dir.h */
#include <string.h>
#include <unistd.h>

#include "self_dir.h"

int iol_self_dir(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0 || (size_t)n >= len - 1)      /* unreadable, or possibly cut short */
        return -1;
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}
