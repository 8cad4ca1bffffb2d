/* libdaos_common of the DAOS emulation.  DAOS clients such as IOR link -ldaos_common for DAOS's
 * internal helpers; no public function is needed from it, so the library only has to exist. */
int iol_emu_daos_common_present;
