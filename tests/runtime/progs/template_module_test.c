/* The test of the template module (src/runtime/modules/template.c): one file,
 * built twice.  With -DTEMPLATE_LIB it is the library whose call the module
 * intercepts (iolens_template_foo: 0 for dat >= 0, else -1 with errno EDOM);
 * without, the program that calls it under the runtime.  The program checks what
 * a wrapper must never change: the return value and errno of the real call.
 * tests/runtime/test_module_exercise.py makes it the test of a copied module. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

int iolens_template_foo(const char *path, int dat);

#ifdef TEMPLATE_LIB
int iolens_template_foo(const char *path, int dat)
{
    (void)path;
    if (dat < 0) {
        errno = EDOM;
        return -1;
    }
    return 0;
}
#else
int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "/tmp/template-module-test";
    int bad = 0;
    errno = 0;
    bad |= iolens_template_foo(path, 7) != 0;
    bad |= iolens_template_foo(path, 42) != 0;
    bad |= iolens_template_foo(path, -1) != -1 || errno != EDOM;   /* failure kept as is */
    if (bad)
        fprintf(stderr, "template_module_test: the wrapper changed a result or errno\n");
    return bad;
}
#endif
