/* Where logs go (shared by the runtime and `iolens config`).  Configured root
 * (DARSHAN_LOGPATH / LOGPATH): <root>/<Y>/<M>/<D>/ when that tree exists (as
 * darshan-mk-log-dirs makes it), otherwise <root>/ itself.  Nothing configured:
 * ${XDG_STATE_HOME:-$HOME/.local/state}/iolens/logs (docs/configuration.md). */
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void iol_log_user(const iol_config *c, char *out, size_t len)
{
    if (c->username[0])
        snprintf(out, len, "%s", c->username);
    else
        snprintf(out, len, "%u", (unsigned)geteuid());
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int iol_default_log_dir(char *out, size_t len, char *(*get)(const char *))
{
    const char *state = get("XDG_STATE_HOME");
    const char *home = get("HOME");
    int n;
    if (state && state[0] == '/')
        n = snprintf(out, len, "%s/iolens/logs", state);
    else if (home && home[0] == '/' && is_dir(home))
        n = snprintf(out, len, "%s/.local/state/iolens/logs", home);
    else
        return -1;
    return (n > 0 && (size_t)n < len) ? 0 : -1;
}

int iol_log_dir(const iol_config *c, time_t when, char *out, size_t len,
                char *(*get)(const char *), int *configured)
{
    *configured = c->logpath[0] != '\0';
    if (!*configured)
        return iol_default_log_dir(out, len, get);
    struct tm tm;
    localtime_r(&when, &tm);
    int n = snprintf(out, len, "%s/%d/%d/%d", c->logpath, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    if (n > 0 && (size_t)n < len && is_dir(out))
        return 0;
    n = snprintf(out, len, "%s", c->logpath);
    return (n > 0 && (size_t)n < len) ? 0 : -1;
}

int iol_mkdirs(const char *path, mode_t mode)
{
    char buf[IOL_PATH_LEN];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char save = *p;
            *p = '\0';
            if (mkdir(buf, mode) != 0 && errno != EEXIST)
                return -1;
            *p = save;
            if (!save)
                break;
        }
    }
    return is_dir(path) ? 0 : -1;
}

static int add_dir(char out[IOL_LOG_DIRS_MAX][IOL_PATH_LEN], int n, const char *dir)
{
    if (n >= IOL_LOG_DIRS_MAX || !dir[0] || strlen(dir) >= IOL_PATH_LEN)
        return n;
    for (int i = 0; i < n; i++)
        if (strcmp(out[i], dir) == 0)
            return n;
    memcpy(out[n], dir, strlen(dir) + 1);
    return n + 1;
}

int iol_log_dirs(const iol_config *c, time_t when, char *(*get)(const char *),
                 char out[IOL_LOG_DIRS_MAX][IOL_PATH_LEN])
{
    char dir[IOL_PATH_LEN];
    int n = 0, configured;
    if (iol_log_dir(c, when, dir, sizeof dir, get, &configured) == 0 &&
        (configured || iol_mkdirs(dir, 0700) == 0))
        n = add_dir(out, n, dir);
    if (iol_default_log_dir(dir, sizeof dir, get) == 0 && iol_mkdirs(dir, 0700) == 0)
        n = add_dir(out, n, dir);
    const char *tmpdir = get("TMPDIR");
    if (tmpdir && tmpdir[0] == '/')
        n = add_dir(out, n, tmpdir);
    return add_dir(out, n, "/tmp");
}
