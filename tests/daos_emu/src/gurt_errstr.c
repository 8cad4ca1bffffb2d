/* Names of the DER_* codes (libgurt of the DAOS emulation). */
#include <stdlib.h>
#include <daos_errno.h>

#define IOL_EMU_NAME(name) #name,
static const char *const gurt_names[] = { IOL_EMU_GURT_ERRORS(IOL_EMU_NAME) };
static const char *const daos_names[] = { IOL_EMU_DAOS_ERRORS(IOL_EMU_NAME) };
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *d_errstr(int errnum)
{
	int code = abs(errnum);

	if (code == 0)
		return "DER_SUCCESS";
	if (code > DER_ERR_GURT_BASE && code <= DER_ERR_GURT_BASE + COUNT(gurt_names))
		return gurt_names[code - DER_ERR_GURT_BASE - 1];
	if (code > DER_ERR_DAOS_BASE && code <= DER_ERR_DAOS_BASE + COUNT(daos_names))
		return daos_names[code - DER_ERR_DAOS_BASE - 1];
	return "DER_UNKNOWN";
}

/* The emulation has no descriptions of its own: the name stands for one. */
const char *d_errdesc(int errnum)
{
	return d_errstr(errnum);
}
