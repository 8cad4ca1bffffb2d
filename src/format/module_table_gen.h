/* Expands one counter table file into name/description/combine arrays.
 * Include with IOL_TBL (identifier) and IOL_TBL_FILE ("x.def") defined; it is
 * included once per table by modules.c.  INT and COMP lines go to the "int"
 * arrays (COMP only occurs in lustre.def), FLT lines to the "flt" arrays.  Every
 * array ends with a sentinel so that tables without FLT lines stay valid C. */
#define IOL_CAT2(a, b) a##b
#define IOL_CAT(a, b) IOL_CAT2(a, b)

#define INT(n, c, d) #n,
#define COMP(n, c, d) #n,
#define FLT(n, c, d)
static const char *const IOL_CAT(IOL_TBL, _int_names)[] = {
#include IOL_TBL_FILE
    NULL };
#undef INT
#undef COMP
#define INT(n, c, d) d,
#define COMP(n, c, d) d,
static const char *const IOL_CAT(IOL_TBL, _int_desc)[] = {
#include IOL_TBL_FILE
    NULL };
#undef INT
#undef COMP
#define INT(n, c, d) IOL_COMBINE_##c,
#define COMP(n, c, d) IOL_COMBINE_##c,
static const unsigned char IOL_CAT(IOL_TBL, _int_combine)[] = {
#include IOL_TBL_FILE
    0 };
#undef INT
#undef COMP
#undef FLT

#define INT(n, c, d)
#define COMP(n, c, d)
#define FLT(n, c, d) #n,
static const char *const IOL_CAT(IOL_TBL, _flt_names)[] = {
#include IOL_TBL_FILE
    NULL };
#undef FLT
#define FLT(n, c, d) d,
static const char *const IOL_CAT(IOL_TBL, _flt_desc)[] = {
#include IOL_TBL_FILE
    NULL };
#undef FLT
#define FLT(n, c, d) IOL_COMBINE_##c,
static const unsigned char IOL_CAT(IOL_TBL, _flt_combine)[] = {
#include IOL_TBL_FILE
    0 };
#undef FLT
#undef INT
#undef COMP

#undef IOL_TBL
#undef IOL_TBL_FILE
