/* Host names in hostlist form, the compact notation schedulers use
 * ("nid[001-004,010],login1"): names that differ only in a trailing number of
 * the same width share one prefix and a list of ranges. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_int.h"

/* Length of the name without its trailing digits. */
static size_t stem(const char *s)
{
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] >= '0' && s[n - 1] <= '9')
        n--;
    return n;
}

/* Same stem, same digit width: the number orders them; otherwise plain text. */
static int cmp_host(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t sx = stem(x), sy = stem(y), dx = strlen(x) - sx, dy = strlen(y) - sy;
    int c = sx == sy ? strncmp(x, y, sx) : strcmp(x, y);
    if (c || sx != sy)
        return c;
    if (dx != dy)
        return dx < dy ? -1 : 1;
    return strcmp(x + sx, y + sy);
}

/* x and y share a stem and digit width and y's number is x's + 1. */
static int follows(const char *x, const char *y)
{
    size_t sx = stem(x), sy = stem(y), d = strlen(x) - sx;
    if (sx != sy || d == 0 || d > 18 || strlen(y) - sy != d || strncmp(x, y, sx))
        return 0;
    return strtoull(y + sy, NULL, 10) == strtoull(x + sx, NULL, 10) + 1;
}

static int same_group(const char *x, const char *y)
{
    size_t sx = stem(x), sy = stem(y);
    return sx == sy && sx < strlen(x) && strlen(x) - sx == strlen(y) - sy && !strncmp(x, y, sx);
}

/* One group (names[i..j), same stem and width) as "stem[a-b,c]" or "name". */
static size_t group_text(const char **names, size_t i, size_t j, char *out, size_t len)
{
    size_t s = stem(names[i]), used = 0;
    if (j - i == 1)
        return (size_t)snprintf(out, len, "%s", names[i]);
    used = (size_t)snprintf(out, len, "%.*s[", (int)s, names[i]);
    for (size_t k = i; k < j && used < len;) {
        size_t e = k;
        while (e + 1 < j && follows(names[e], names[e + 1]))
            e++;
        used += (size_t)snprintf(out + used, len - used, "%s%s", k > i ? "," : "", names[k] + s);
        if (e > k && used < len)
            used += (size_t)snprintf(out + used, len - used, "-%s", names[e] + s);
        k = e + 1;
    }
    if (used < len)
        used += (size_t)snprintf(out + used, len - used, "]");
    return used;
}

size_t iol_hostlist(const char **names, size_t n, char *out, size_t cap)
{
    qsort(names, n, sizeof *names, cmp_host);
    size_t uniq = 0;
    for (size_t i = 0; i < n; i++)
        if (uniq == 0 || strcmp(names[uniq - 1], names[i]) != 0)
            names[uniq++] = names[i];
    size_t used = 0, shown = 0;
    char piece[1024];
    out[0] = '\0';
    for (size_t i = 0; i < uniq;) {
        size_t j = i + 1;
        while (j < uniq && same_group(names[i], names[j]))
            j++;
        size_t pl = group_text(names, i, j, piece, sizeof piece);
        /* room for this group and a ",+N" tail for whatever may be left out */
        size_t tail = j < uniq ? 12 : 0;
        if (pl >= sizeof piece || used + (used > 0) + pl + tail > cap)
            break;
        used += (size_t)snprintf(out + used, cap + 1 - used, "%s%s", used ? "," : "", piece);
        shown = j;
        i = j;
    }
    if (shown < uniq)
        snprintf(out + used, cap + 1 - used, "%s+%zu", used ? "," : "", uniq - shown);
    return uniq;
}
