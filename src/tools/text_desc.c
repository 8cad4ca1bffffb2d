/* Module description texts that darshan-parser prints after a module's section
 * header (and again before the --total block).  The texts are upstream output
 * strings, reproduced as interoperability facts (log-format spec, Appendix A).
 *
 * Each stored record version's text is a run of paragraphs, and most paragraphs
 * (the counter descriptions, the "version <= N" warnings) are shared by several
 * versions.  So each paragraph is stored once, with the versions it appears in;
 * a version's text is "\n" + paragraph for every paragraph whose range holds it,
 * in table order.  A version outside every range (newer than we know) gets none. */
#include <stddef.h>
#include "parse.h"

struct fragment {
    int module;
    uint32_t first, last;   /* record versions the paragraph is printed for */
    const char *text;       /* one paragraph, ending in "\n" */
};

static const struct fragment fragments[] = {
    {IOL_MOD_POSIX, 1, 4,
        "# description of POSIX counters:\n"
        "#   POSIX_*: posix operation counts.\n"
        "#   READS,WRITES,OPENS,SEEKS,STATS,MMAPS,SYNCS,FILENOS,DUPS are types of operations.\n"
        "#   POSIX_RENAME_SOURCES/TARGETS: total count file was source or target of a rename operation\n"
        "#   POSIX_RENAMED_FROM: Darshan record ID of the first rename source, if file was a rename target\n"
        "#   POSIX_MODE: mode that file was opened in.\n"
        "#   POSIX_BYTES_*: total bytes read and written.\n"
        "#   POSIX_MAX_BYTE_*: highest offset byte read and written.\n"
        "#   POSIX_CONSEC_*: number of exactly adjacent reads and writes.\n"
        "#   POSIX_SEQ_*: number of reads and writes from increasing offsets.\n"
        "#   POSIX_RW_SWITCHES: number of times access alternated between read and write.\n"
        "#   POSIX_*_ALIGNMENT: memory and file alignment.\n"
        "#   POSIX_*_NOT_ALIGNED: number of reads and writes that were not aligned.\n"
        "#   POSIX_MAX_*_TIME_SIZE: size of the slowest read and write operations.\n"
        "#   POSIX_SIZE_*_*: histogram of read and write access sizes.\n"
        "#   POSIX_STRIDE*_STRIDE: the four most common strides detected.\n"
        "#   POSIX_STRIDE*_COUNT: count of the four most common strides.\n"
        "#   POSIX_ACCESS*_ACCESS: the four most common access sizes.\n"
        "#   POSIX_ACCESS*_COUNT: count of the four most common access sizes.\n"
        "#   POSIX_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared files).\n"
        "#   POSIX_*_RANK_BYTES: bytes transferred by the fastest and slowest ranks (for shared files).\n"
        "#   POSIX_F_*_START_TIMESTAMP: timestamp of first open/read/write/close.\n"
        "#   POSIX_F_*_END_TIMESTAMP: timestamp of last open/read/write/close.\n"
        "#   POSIX_F_READ/WRITE/META_TIME: cumulative time spent in read, write, or metadata operations.\n"
        "#   POSIX_F_MAX_*_TIME: duration of the slowest read and write operations.\n"
        "#   POSIX_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared files).\n"
        "#   POSIX_F_VARIANCE_RANK_*: variance of total I/O time and bytes moved for all ranks (for shared files).\n"},
    {IOL_MOD_POSIX, 1, 1,
        "# WARNING: POSIX module log format version 1 has the following limitations:\n"
        "# - Darshan version 3.1.0 and earlier had only partial instrumentation of stdio stream I/O functions.\n"
        "#   File records with stdio counters present will be omitted from output.\n"
        "#   Use darshan-logutils < 3.1.0 to retrieve those records.\n"},
    {IOL_MOD_POSIX, 1, 2,
        "# WARNING: POSIX module log format version <=2 has the following limitations:\n"
        "# - No support for the following timers:\n"
        "# \t- POSIX_F_CLOSE_START_TIMESTAMP\n"
        "# \t- POSIX_F_OPEN_END_TIMESTAMP\n"},
    {IOL_MOD_POSIX, 1, 3,
        "# WARNING: POSIX module log format version <=3 has the following limitations:\n"
        "# - No support for the following counters to properly instrument dup, fileno, and rename operations:\n"
        "# \t- POSIX_FILENOS\n"
        "# \t- POSIX_DUPS\n"
        "# \t- POSIX_RENAME_SOURCES\n"
        "# \t- POSIX_RENAME_TARGETS\n"
        "# \t- POSIX_RENAMED_FROM\n"},
    {IOL_MOD_POSIX, 4, 4,
        "# WARNING: POSIX_OPENS counter includes both POSIX_FILENOS and POSIX_DUPS counts\n"},
    {IOL_MOD_POSIX, 4, 4,
        "# WARNING: POSIX counters related to file offsets may be incorrect if a file is simultaneously accessed by both POSIX and STDIO (e.g., using fileno())\n"
        "# \t- Affected counters include: MAX_BYTE_{READ|WRITTEN}, CONSEC_{READS|WRITES}, SEQ_{READS|WRITES}, {MEM|FILE}_NOT_ALIGNED, STRIDE*_STRIDE\n"},
    {IOL_MOD_MPIIO, 1, 3,
        "# description of MPIIO counters:\n"
        "#   MPIIO_INDEP_*: MPI independent operation counts.\n"
        "#   MPIIO_COLL_*: MPI collective operation counts.\n"
        "#   MPIIO_SPLIT_*: MPI split collective operation counts.\n"
        "#   MPIIO_NB_*: MPI non blocking operation counts.\n"
        "#   READS,WRITES,and OPENS are types of operations.\n"
        "#   MPIIO_SYNCS: MPI file sync operation counts.\n"
        "#   MPIIO_HINTS: number of times MPI hints were used.\n"
        "#   MPIIO_VIEWS: number of times MPI file views were used.\n"
        "#   MPIIO_MODE: MPI-IO access mode that file was opened with.\n"
        "#   MPIIO_BYTES_*: total bytes read and written at MPI-IO layer.\n"
        "#   MPIIO_RW_SWITCHES: number of times access alternated between read and write.\n"
        "#   MPIIO_MAX_*_TIME_SIZE: size of the slowest read and write operations.\n"
        "#   MPIIO_SIZE_*_AGG_*: histogram of MPI datatype total sizes for read and write operations.\n"
        "#   MPIIO_ACCESS*_ACCESS: the four most common total access sizes.\n"
        "#   MPIIO_ACCESS*_COUNT: count of the four most common total access sizes.\n"
        "#   MPIIO_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared files).\n"
        "#   MPIIO_*_RANK_BYTES: total bytes transferred at MPI-IO layer by the fastest and slowest ranks (for shared files).\n"
        "#   MPIIO_F_*_START_TIMESTAMP: timestamp of first MPI-IO open/read/write/close.\n"
        "#   MPIIO_F_*_END_TIMESTAMP: timestamp of last MPI-IO open/read/write/close.\n"
        "#   MPIIO_F_READ/WRITE/META_TIME: cumulative time spent in MPI-IO read, write, or metadata operations.\n"
        "#   MPIIO_F_MAX_*_TIME: duration of the slowest MPI-IO read and write operations.\n"
        "#   MPIIO_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared files).\n"
        "#   MPIIO_F_VARIANCE_RANK_*: variance of total I/O time and bytes moved for all ranks (for shared files).\n"},
    {IOL_MOD_MPIIO, 1, 1,
        "# WARNING: MPIIO module log format version 1 has the following limitations:\n"
        "# - MPIIO_F_WRITE_START_TIMESTAMP may not be accurate.\n"},
    {IOL_MOD_MPIIO, 1, 2,
        "# WARNING: MPIIO module log format version <=2 does not support the following counters:\n"
        "# - MPIIO_F_CLOSE_START_TIMESTAMP\n"
        "# - MPIIO_F_OPEN_END_TIMESTAMP\n"},
    {IOL_MOD_H5F, 1, 3,
        "# description of HDF5 counters:\n"
        "#   H5F_OPENS: HDF5 file open/create operation counts.\n"
        "#   H5F_FLUSHES: HDF5 file flush operation counts.\n"
        "#   H5F_USE_MPIIO: flag indicating whether MPI-IO was used to access this file.\n"
        "#   H5F_F_*_START_TIMESTAMP: timestamp of first HDF5 file open/close.\n"
        "#   H5F_F_*_END_TIMESTAMP: timestamp of last HDF5 file open/close.\n"
        "#   H5F_F_META_TIME: cumulative time spent in HDF5 metadata operations.\n"},
    {IOL_MOD_H5F, 1, 1,
        "# WARNING: H5F module log format version 1 does not support the following counters:\n"
        "# - H5F_F_CLOSE_START_TIMESTAMP\n"
        "# - H5F_F_OPEN_END_TIMESTAMP\n"},
    {IOL_MOD_H5F, 1, 2,
        "# WARNING: H5F module log format version <=2 does not support the following counters:\n"
        "# \t- H5F_FLUSHES\n"
        "# \t- H5F_USE_MPIIO\n"
        "# \t- H5F_F_META_TIME\n"},
    {IOL_MOD_H5D, 1, 2,
        "# description of HDF5 counters:\n"
        "#   H5D_OPENS: HDF5 dataset open/create operation counts.\n"
        "#   H5D_READS: HDF5 dataset read operation counts.\n"
        "#   H5D_WRITES: HDF5 dataset write operation counts.\n"
        "#   H5D_FLUSHES: HDF5 dataset flush operation counts.\n"
        "#   H5D_BYTES_*: total bytes read and written at HDF5 dataset layer.\n"
        "#   H5D_RW_SWITCHES: number of times access alternated between read and write.\n"
        "#   H5D_*_SELECTS: number of different access selections (regular/irregular hyperslab or points).\n"
        "#   H5D_MAX_*_TIME_SIZE: size of the slowest read and write operations.\n"
        "#   H5D_SIZE_*_AGG_*: histogram of H5D total access sizes for read and write operations.\n"
        "#   H5D_ACCESS*_*: the four most common total accesses, in terms of size and length/stride (in last 5 dimensions).\n"
        "#   H5D_ACCESS*_COUNT: count of the four most common total access sizes.\n"
        "#   H5D_DATASPACE_NDIMS: number of dimensions in dataset's dataspace.\n"
        "#   H5D_DATASPACE_NPOINTS: number of points in dataset's dataspace.\n"
        "#   H5D_DATATYPE_SIZE: size of each dataset element.\n"
        "#   H5D_CHUNK_SIZE_D*: chunk size in last 5 dimensions of dataset.\n"
        "#   H5D_USE_MPIIO_COLLECTIVE: flag indicating whether MPI-IO collectives were used to access this dataset.\n"
        "#   H5D_USE_DEPRECATED: flag indicating whether deprecated H5D calls were used.\n"
        "#   H5D_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared datasets).\n"
        "#   H5D_*_RANK_BYTES: total bytes transferred at H5D layer by the fastest and slowest ranks (for shared datasets).\n"
        "#   H5D_F_*_START_TIMESTAMP: timestamp of first HDF5 dataset open/read/write/close.\n"
        "#   H5D_F_*_END_TIMESTAMP: timestamp of last HDF5 datset open/read/write/close.\n"
        "#   H5D_F_READ/WRITE/META_TIME: cumulative time spent in H5D read, write, or metadata operations.\n"
        "#   H5D_F_MAX_*_TIME: duration of the slowest H5D read and write operations.\n"
        "#   H5D_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared datasets).\n"
        "#   H5D_F_VARIANCE_RANK_*: variance of total I/O time and bytes moved for all ranks (for shared datasets).\n"
        "#   H5D_FILE_REC_ID: Darshan file record ID of the file the dataset belongs to.\n"},
    {IOL_MOD_H5D, 1, 1,
        "# WARNING: H5D module log format version 1 does not support the following counters:\n"
        "# - H5D_FILE_REC_ID\n"},
    {IOL_MOD_PNETCDF_FILE, 1, 3,
        "# description of PnetCDF counters:\n"
        "#   PNETCDF_FILE_CREATES: PnetCDF file create operation counts.\n"
        "#   PNETCDF_FILE_OPENS: PnetCDF file open operation counts.\n"
        "#   PNETCDF_FILE_REDEFS: PnetCDF file re-define operation counts.\n"
        "#   PNETCDF_FILE_INDEP_WAITS: PnetCDF independent file wait operation counts.\n"
        "#   PNETCDF_FILE_COLL_WAITS: PnetCDF collective file wait operation counts.\n"
        "#   PNETCDF_FILE_SYNCS: PnetCDF file sync operation counts.\n"
        "#   PNETCDF_FILE_BYTES_READ: PnetCDF total bytes read for all file variables.\n"
        "#   PNETCDF_FILE_BYTES_WRITTEN: PnetCDF total bytes written for all file variables.\n"
        "#   PNETCDF_FILE_WAIT_FAILURES: PnetCDF file wait operation failure counts.\n"
        "#   PNETCDF_FILE_F_*_START_TIMESTAMP: timestamp of first PnetCDF file open/close/wait operation.\n"
        "#   PNETCDF_FILE_F_*_END_TIMESTAMP: timestamp of last PnetCDF file open/close/wait operation.\n"
        "#   PNETCDF_FILE_F_META_TIME: Cumulative time spent in file metadata operations.\n"
        "#   PNETCDF_FILE_F_WAIT_TIME: Cumulative time spent in file wait operations.\n"},
    {IOL_MOD_PNETCDF_FILE, 1, 1,
        "# WARNING: PnetCDF file module log format version 1 does not support the following counters:\n"
        "# - PNETCDF_FILE_F_CLOSE_START_TIMESTAMP\n"
        "# - PNETCDF_FILE_F_OPEN_END_TIMESTAMP\n"},
    {IOL_MOD_PNETCDF_FILE, 1, 2,
        "# WARNING: PnetCDF file module log format version <=2 does not support the following counters:\n"
        "# - PNETCDF_FILE_CREATES\n"
        "# - PNETCDF_FILE_REDEFS\n"
        "# - PNETCDF_FILE_INDEP_WAITS\n"
        "# - PNETCDF_FILE_COLL_WAITS\n"
        "# - PNETCDF_FILE_SYNCS\n"
        "# - PNETCDF_FILE_BYTES_READ\n"
        "# - PNETCDF_FILE_BYTES_WRITTEN\n"
        "# - PNETCDF_FILE_WAIT_FAILURES\n"
        "# - PNETCDF_FILE_F_WAIT_START_TIMESTAMP\n"
        "# - PNETCDF_FILE_F_WAIT_END_TIMESTAMP\n"
        "# - PNETCDF_FILE_F_META_TIME\n"
        "# - PNETCDF_FILE_F_WAIT_TIME\n"},
    {IOL_MOD_PNETCDF_VAR, 1, 1,
        "# description of PnetCDF counters:\n"
        "#   PNETCDF_VAR_OPENS: PnetCDF variable define/inquire operation counts.\n"
        "#   PNETCDF_VAR_INDEP_READS: PnetCDF variable independent read operation counts.\n"
        "#   PNETCDF_VAR_INDEP_WRITES: PnetCDF variable independent write operation counts.\n"
        "#   PNETCDF_VAR_COLL_READS: PnetCDF variable collective read operation counts.\n"
        "#   PNETCDF_VAR_COLL_WRITES: PnetCDF variable collective write operation counts.\n"
        "#   PNETCDF_VAR_NB_READS: PnetCDF variable nonblocking read operation counts.\n"
        "#   PNETCDF_VAR_NB_WRITES: PnetCDF variable nonblocking write operation counts.\n"
        "#   PNETCDF_VAR_BYTES_*: total bytes read and written at PnetCDF variable layer.\n"
        "#   PNETCDF_VAR_RW_SWITCHES: number of times access alternated between read and write.\n"
        "#   PNETCDF_VAR_PUT_VAR*: number of calls to ncmpi_put_var* APIs (var, var1, vara, vars, varm, varn, vard).\n"
        "#   PNETCDF_VAR_GET_VAR*: number of calls to ncmpi_get_var* APIs (var, var1, vara, vars, varm, varn, vard).\n"
        "#   PNETCDF_VAR_IPUT_VAR*: number of calls to ncmpi_iput_var* APIs (var, var1, vara, vars, varm, varn).\n"
        "#   PNETCDF_VAR_IGET_VAR*: number of calls to ncmpi_iget_var* APIs (var, var1, vara, vars, varm, varn).\n"
        "#   PNETCDF_VAR_BPUT_VAR*: number of calls to ncmpi_bput_var* APIs (var, var1, vara, vars, varm, varn).\n"
        "#   PNETCDF_VAR_MAX_*_TIME_SIZE: size of the slowest read and write operations.\n"
        "#   PNETCDF_VAR_SIZE_*_AGG_*: histogram of PnetCDf total access sizes for read and write operations.\n"
        "#   PNETCDF_VAR_ACCESS*_*: the four most common total accesses, in terms of size and length/stride (in last 5 dimensions).\n"
        "#   PNETCDF_VAR_ACCESS*_COUNT: count of the four most common total access sizes.\n"
        "#   PNETCDF_VAR_NDIMS: number of dimensions in the variable.\n"
        "#   PNETCDF_VAR_NPOINTS: number of points in the variable.\n"
        "#   PNETCDF_VAR_DATATYPE_SIZE: size of each variable element.\n"
        "#   PNETCDF_VAR_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared datasets).\n"
        "#   PNETCDF_VAR_*_RANK_BYTES: total bytes transferred at PnetCDF layer by the fastest and slowest ranks (for shared datasets).\n"
        "#   PNETCDF_VAR_F_*_START_TIMESTAMP: timestamp of first PnetCDF variable open/read/write/close.\n"
        "#   PNETCDF_VAR_F_*_END_TIMESTAMP: timestamp of last PnetCDF variable open/read/write/close.\n"
        "#   PNETCDF_VAR_F_READ/WRITE/META_TIME: cumulative time spent in PnetCDF read, write, or metadata operations.\n"
        "#   PNETCDF_VAR_F_MAX_*_TIME: duration of the slowest PnetCDF read and write operations.\n"
        "#   PNETCDF_VAR_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared datasets).\n"
        "#   PNETCDF_VAR_F_VARIANCE_RANK_*: variance of total I/O time and bytes moved for all ranks (for shared datasets).\n"
        "#   PNETCDF_VAR_FILE_REC_ID: Darshan file record ID of the file the variable belongs to.\n"},
    {IOL_MOD_BGQ, 1, 2,
        "# description of BGQ counters:\n"
        "#   BGQ_CSJOBID: BGQ control system job ID.\n"
        "#   BGQ_NNODES: number of BGQ compute nodes for this job.\n"
        "#   BGQ_RANKSPERNODE: number of MPI ranks per compute node.\n"
        "#   BGQ_DDRPERNODE: size in MB of DDR3 per compute node.\n"
        "#   BGQ_INODES: number of BGQ I/O nodes for this job.\n"
        "#   BGQ_*NODES: dimension of A, B, C, D, & E dimensions of torus.\n"
        "#   BGQ_TORUSENABLED: which dimensions of the torus are enabled.\n"
        "#   BGQ_F_TIMESTAMP: timestamp when the BGQ data was collected.\n"},
    {IOL_MOD_LUSTRE, 1, 2,
        "# description of LUSTRE counters:\n"
        "#   LUSTRE_NUM_COMPONENTS: number of instrumented components in the Lustre layout.\n"
        "#   LUSTRE_NUM_STRIPES: number of active stripes in the Lustre layout components.\n"
        "#   LUSTRE_COMP*_STRIPE_SIZE: stripe size for this file layout component in bytes.\n"
        "#   LUSTRE_COMP*_STRIPE_COUNT: number of OSTs over which the file layout component is striped.\n"
        "#   LUSTRE_COMP*_STRIPE_PATTERN: pattern (e.g., raid0, mdt, overstriped) for this file layout component.\n"
        "#   LUSTRE_COMP*_FLAGS: captured flags (e.g. init, prefwr, stale) for this file layout component.\n"
        "#   LUSTRE_COMP*_EXT_START: starting file extent for this file layout component.\n"
        "#   LUSTRE_COMP*_EXT_END: ending file extent for this file layout component (-1 means EOF).\n"
        "#   LUSTRE_COMP*_MIRROR_ID: mirror ID for this file layout component, if mirrors are enabled.\n"
        "#   LUSTRE_COMP*_POOL_NAME: Lustre OST pool used for this file layout component.\n"
        "#   LUSTRE_COMP*_OST_ID_*: indices of OSTs over which this file layout component is striped.\n"},
    {IOL_MOD_STDIO, 1, 2,
        "# description of STDIO counters:\n"
        "#   STDIO_{OPENS|FDOPENS|WRITES|READS|SEEKS|FLUSHES} are types of operations.\n"
        "#   STDIO_BYTES_*: total bytes read and written.\n"
        "#   STDIO_MAX_BYTE_*: highest offset byte read and written.\n"
        "#   STDIO_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared files).\n"
        "#   STDIO_*_RANK_BYTES: bytes transferred by the fastest and slowest ranks (for shared files).\n"
        "#   STDIO_F_*_START_TIMESTAMP: timestamp of the first call to that type of function.\n"
        "#   STDIO_F_*_END_TIMESTAMP: timestamp of the completion of the last call to that type of function.\n"
        "#   STDIO_F_*_TIME: cumulative time spent in different types of functions.\n"
        "#   STDIO_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared files).\n"
        "#   STDIO_F_VARIANCE_RANK_*: variance of total I/O time and bytes moved for all ranks (for shared files).\n"},
    {IOL_MOD_STDIO, 1, 1,
        "# WARNING: STDIO module log format version 1 has the following limitations:\n"
        "# - No support for properly instrumenting fdopen operations (STDIO_FDOPENS)\n"},
    {IOL_MOD_STDIO, 2, 2,
        "# WARNING: STDIO_OPENS counter includes STDIO_FDOPENS count\n"},
    {IOL_MOD_STDIO, 2, 2,
        "# WARNING: STDIO counters related to file offsets may be incorrect if a file is simultaneously accessed by both STDIO and POSIX (e.g., using fdopen())\n"
        "# \t- Affected counters include: MAX_BYTE_{READ|WRITTEN}\n"},
    {IOL_MOD_MDHIM, 1, 1,
        "# description of MDHIM counters:\n"
        "#   MDHIM_PUTS: number of 'mdhim_put' function calls.\n"
        "#   MDHIM_GETS: number of 'mdhim_get' function calls.\n"
        "#   MDHIM_SERVERS: how many mdhim servers \n"
        "#   MDHIM_F_PUT_TIMESTAMP: timestamp of the first call to function 'mdhim_put'.\n"
        "#   MDHIM_F_GET_TIMESTAMP: timestamp of the first call to function 'mdhim_get'.\n"
        "#   MDHIM_SERVER_N: how many operations sent to this server\n"},
    {IOL_MOD_HEATMAP, 1, 1,
        "# description of heatmap counters:\n"
        "#   HEATMAP_F_BIN_WIDTH_SECONDS: time duration of each heatmap bin\n"
        "#   HEATMAP_{READ|WRITE}_BIN_{*}: number of bytes read or written within specified heatmap bin\n"},
    {IOL_MOD_DFS, 1, 1,
        "# description of DFS counters:\n"
        "#   DFS_*: DFS operation counts.\n"
        "#   OPENS,GLOBAL_OPENS,LOOKUPS,DUPS,READS,READXS,WRITES,WRITEXS,GET_SIZES,PUNCHES,REMOVES,STATS are types of operations.\n"
        "#   DFS_BYTES_*: total bytes read and written.\n"
        "#   DFS_RW_SWITCHES: number of times access alternated between read and write.\n"
        "#   DFS_MAX_*_TIME_SIZE: size of the slowest read and write operations.\n"
        "#   DFS_SIZE_*_*: histogram of read and write access sizes.\n"
        "#   DFS_ACCESS*_ACCESS: the four most common access sizes.\n"
        "#   DFS_ACCESS*_COUNT: count of the four most common access sizes.\n"
        "#   DFS_CHUNK_SIZE: DFS file chunk size.\n"
        "#   DFS_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared files).\n"
        "#   DFS_*_RANK_BYTES: bytes transferred by the fastest and slowest ranks (for shared files).\n"
        "#   DFS_F_*_START_TIMESTAMP: timestamp of first open/read/write/close.\n"
        "#   DFS_F_*_END_TIMESTAMP: timestamp of last open/read/write/close.\n"
        "#   DFS_F_READ/WRITE/META_TIME: cumulative time spent in read, write, or metadata operations.\n"
        "#   DFS_F_MAX_*_TIME: duration of the slowest read and write operations.\n"
        "#   DFS_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared files).\n"},
    {IOL_MOD_DAOS, 1, 1,
        "# description of DAOS counters:\n"
        "#   DAOS_*: DAOS operation counts.\n"
        "#   OBJ_OPENS,OBJ_FETCHES,OBJ_UPDATES,OBJ_PUNCHES,OBJ_DKEY_PUNCHES,OBJ_AKEY_PUNCHES,OBJ_DKEY_LISTS,OBJ_AKEY_LISTS,OBJ_RECX_LISTS are types of DAOS object operations.\n"
        "#   ARRAY_OPENS,ARRAY_READS,ARRAY_WRITES,ARRAY_GET_SIZES,ARRAY_SET_SIZES,ARRAY_STATS,ARRAY_PUNCHES,ARRAY_DESTROYS are types of DAOS array operations\n"
        "#   KV_OPENS,KV_GETS,KV_PUTS,KV_REMOVES,KV_LISTS,KV_DESTROYS are types of DAOS kv operations\n"
        "#   DAOS_BYTES_*: total bytes read and written using all DAOS object APIs.\n"
        "#   DAOS_RW_SWITCHES: number of times access alternated between read and write.\n"
        "#   DAOS_MAX_*_TIME_SIZE: size of the slowest read and write operations.\n"
        "#   DAOS_SIZE_*_*: histogram of read and write access sizes.\n"
        "#   DAOS_ACCESS*_ACCESS: the four most common access sizes.\n"
        "#   DAOS_ACCESS*_COUNT: count of the four most common access sizes.\n"
        "#   DAOS_OBJ_OTYPE: DAOS otype value for the object.\n"
        "#   DAOS_ARRAY_CELL_SIZE: the cell size for DAOS array objects\n"
        "#   DAOS_ARRAY_CHUNK_SIZE: the chunk size for DAOS array objects\n"
        "#   DAOS_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared objects).\n"
        "#   DAOS_*_RANK_BYTES: bytes transferred by the fastest and slowest ranks (for shared objects).\n"
        "#   DAOS_F_*_START_TIMESTAMP: timestamp of first open/read/write/close.\n"
        "#   DAOS_F_*_END_TIMESTAMP: timestamp of last open/read/write/close.\n"
        "#   DAOS_F_READ/WRITE/META_TIME: cumulative time spent in read, write, or metadata operations.\n"
        "#   DAOS_F_MAX_*_TIME: duration of the slowest read and write operations.\n"
        "#   DAOS_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared objects).\n"},
};

int iol_text_module_desc(iol_text *out, int module, uint32_t version)
{
    int printed = 0;
    for (size_t i = 0; i < sizeof fragments / sizeof fragments[0]; i++) {
        const struct fragment *f = &fragments[i];
        if (f->module != module || version < f->first || version > f->last)
            continue;
        iol_text_putc(out, '\n');
        iol_text_puts(out, f->text);
        printed = 1;
    }
    return printed;
}
