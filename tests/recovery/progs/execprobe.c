/* execprobe FORM OUTDIR: writes OUTDIR/before (5 bytes), then replaces itself by
 * /bin/sh through the exec function FORM (execl, execlp, execle, execv, execvp,
 * execve, execvpe or fexecve).  The shell prints its $0, $1, $2 and
 * $IOLENS_EXEC_PROBE, separated by '|', so the caller sees the arguments and the
 * environment the exec passed on.  Exit 10 + n: step n failed (exec returned). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SCRIPT "printf '%s|%s|%s|%s' \"$0\" \"$1\" \"$2\" \"$IOLENS_EXEC_PROBE\""

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    const char *form = argv[1];
    char p[4096];
    snprintf(p, sizeof p, "%s/before", argv[2]);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "exec!", 5) != 5 || close(fd) != 0)
        return 11;
    char *args[] = {"sh", "-c", SCRIPT, "zero", "one two", NULL};
    char *env[] = {"IOLENS_EXEC_PROBE=from-envp", NULL};
    if (!strcmp(form, "execl"))
        execl("/bin/sh", "sh", "-c", SCRIPT, "zero", "one two", (char *)NULL);
    else if (!strcmp(form, "execlp"))
        execlp("sh", "sh", "-c", SCRIPT, "zero", "one two", (char *)NULL);
    else if (!strcmp(form, "execle"))
        execle("/bin/sh", "sh", "-c", SCRIPT, "zero", "one two", (char *)NULL, env);
    else if (!strcmp(form, "execv"))
        execv("/bin/sh", args);
    else if (!strcmp(form, "execvp"))
        execvp("sh", args);
    else if (!strcmp(form, "execve"))
        execve("/bin/sh", args, env);
    else if (!strcmp(form, "execvpe"))
        execvpe("sh", args, env);
    else if (!strcmp(form, "fexecve")) {
        int sh = open("/bin/sh", O_RDONLY | O_CLOEXEC);
        if (sh < 0)
            return 12;
        fexecve(sh, args, env);
    } else
        return 2;
    return 13;
}
