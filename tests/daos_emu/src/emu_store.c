/* Files and directories behind the DAOS emulation: paths, uuid files, hex key names, errno to
 * DER mapping and whole-buffer I/O. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>
#include "emu.h"

int iol_emu_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return (n < 0 || (size_t)n >= size) ? -DER_EXCEEDS_PATH_LEN : 0;
}

int iol_emu_temp_path(char *buf, size_t size, const char *path)
{
	static unsigned int counter;
	unsigned int n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);

	return iol_emu_path(buf, size, "%s.tmp.%d.%u", path, (int)getpid(), n);
}

static int read_uuid_file(const char *file, uuid_t uuid)
{
	char text[DAOS_UUID_STR_SIZE] = {0};
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	ssize_t n = read(fd, text, DAOS_UUID_STR_SIZE - 1);
	close(fd);
	if (n != DAOS_UUID_STR_SIZE - 1 || uuid_parse(text, uuid) != 0)
		return EIO;
	return 0;
}

/* Writes a fresh uuid through a temporary file and link(), so that concurrent first
 * connects agree on one uuid. */
static int write_uuid_file(const char *file)
{
	char tmp[PATH_MAX], text[DAOS_UUID_STR_SIZE];
	uuid_t fresh;

	if (iol_emu_temp_path(tmp, sizeof(tmp), file))
		return ENAMETOOLONG;
	uuid_generate(fresh);
	uuid_unparse_lower(fresh, text);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	int err = iol_emu_pwrite_all(fd, text, DAOS_UUID_STR_SIZE - 1, 0);
	close(fd);
	if (!err && link(tmp, file) != 0 && errno != EEXIST)
		err = errno;
	unlink(tmp);
	return err;
}

int iol_emu_dir_uuid(const char *dir, uuid_t uuid)
{
	char file[PATH_MAX];

	if (iol_emu_path(file, sizeof(file), "%s/.uuid", dir))
		return ENAMETOOLONG;
	int err = read_uuid_file(file, uuid);
	if (err != ENOENT)
		return err;
	err = write_uuid_file(file);
	return err ? err : read_uuid_file(file, uuid);
}

static bool entry_has_uuid(const char *dir, const char *uuid_text)
{
	uuid_t want, have;
	char file[PATH_MAX];

	if (uuid_parse(uuid_text, want) != 0 || iol_emu_path(file, sizeof(file), "%s/.uuid", dir))
		return false;
	return read_uuid_file(file, have) == 0 && uuid_compare(want, have) == 0;
}

int iol_emu_find_entry(const char *parent, const char *name, char *dir, size_t size)
{
	struct stat st;

	if (!name || !*name || strchr(name, '/') || name[0] == '.')
		return -DER_INVAL;
	if (iol_emu_path(dir, size, "%s/%s", parent, name))
		return -DER_EXCEEDS_PATH_LEN;
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	DIR *d = opendir(parent);
	if (!d)
		return iol_emu_der(errno);
	int rc = -DER_NONEXIST;
	for (struct dirent *e; rc != 0 && (e = readdir(d));) {
		if (e->d_name[0] == '.' || iol_emu_path(dir, size, "%s/%s", parent, e->d_name))
			continue;
		if (entry_has_uuid(dir, name))
			rc = 0;
	}
	closedir(d);
	return rc;
}

int iol_emu_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) == 0 ? 0 : errno;
	DIR *d = opendir(path);
	if (!d)
		return errno;
	int err = 0;
	char child[PATH_MAX];
	for (struct dirent *e; !err && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		err = iol_emu_path(child, sizeof(child), "%s/%s", path, e->d_name)
			? ENAMETOOLONG : iol_emu_remove_tree(child);
	}
	closedir(d);
	if (!err && rmdir(path) != 0)
		err = errno;
	return err;
}

int iol_emu_der(int err)
{
	switch (err) {
	case 0:            return 0;
	case ENOENT:       return -DER_NONEXIST;
	case EEXIST:       return -DER_EXIST;
	case EPERM:
	case EACCES:       return -DER_NO_PERM;
	case ENOSPC:       return -DER_NOSPACE;
	case ENOMEM:       return -DER_NOMEM;
	case EINVAL:       return -DER_INVAL;
	case ENOTDIR:      return -DER_NOTDIR;
	case ENAMETOOLONG: return -DER_EXCEEDS_PATH_LEN;
	case EBUSY:        return -DER_BUSY;
	case ENOTEMPTY:    return -DER_BUSY;
	case ENOSYS:       return -DER_NOSYS;
	default:           return -DER_IO;
	}
}

int iol_emu_hex_name(const void *key, size_t len, char *out, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *bytes = key;

	if (len == 0 || 2 * len + 1 > size || 2 * len > NAME_MAX)
		return len == 0 ? -DER_INVAL : -DER_KEY2BIG;
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * len] = '\0';
	return 0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

long iol_emu_unhex(const char *hex, void *out, size_t size)
{
	size_t len = strlen(hex);
	unsigned char *bytes = out;

	if (len % 2 || len / 2 > size)
		return -1;
	for (size_t i = 0; i < len / 2; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		bytes[i] = (unsigned char)(hi << 4 | lo);
	}
	return (long)(len / 2);
}

int iol_emu_pread_all(int fd, void *buf, size_t len, off_t off, size_t *got)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	*got = done;
	return 0;
}

int iol_emu_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done, off + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		done += (size_t)n;
	}
	return 0;
}

int iol_emu_zero_range(int fd, off_t off, off_t len)
{
	static const char zeros[65536];

	if (len <= 0)
		return 0;
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len) == 0)
		return 0;
	for (off_t done = 0; done < len;) {
		size_t n = (size_t)(len - done < (off_t)sizeof(zeros) ? len - done : (off_t)sizeof(zeros));
		int err = iol_emu_pwrite_all(fd, zeros, n, off + done);
		if (err)
			return err;
		done += (off_t)n;
	}
	return 0;
}

/* ---------------------------------------------------------------- sgl cursors */

void iol_emu_cursor_init(struct iol_emu_cursor *c, d_sg_list_t *sgl, bool fetch)
{
	memset(c, 0, sizeof(*c));
	c->sgl = sgl;
	c->fetch = fetch;
	c->report = fetch;
}

static size_t iov_capacity(const struct iol_emu_cursor *c, uint32_t i)
{
	const d_iov_t *iov = &c->sgl->sg_iovs[i];

	return c->fetch ? iov->iov_buf_len : iov->iov_len;
}

size_t iol_emu_cursor_left(const struct iol_emu_cursor *c)
{
	size_t left = 0;

	if (!c->sgl || !c->sgl->sg_iovs)
		return 0;
	for (uint32_t i = c->iov; i < c->sgl->sg_nr; i++)
		left += iov_capacity(c, i) - (i == c->iov ? c->offset : 0);
	return left;
}

/* The next contiguous piece of the list, at most max bytes; NULL when exhausted. */
static char *cursor_piece(struct iol_emu_cursor *c, size_t max, size_t *len)
{
	while (c->sgl && c->iov < c->sgl->sg_nr && c->offset >= iov_capacity(c, c->iov)) {
		c->iov++;
		c->offset = 0;
	}
	if (!c->sgl || c->iov >= c->sgl->sg_nr)
		return NULL;
	d_iov_t *iov = &c->sgl->sg_iovs[c->iov];
	if (c->report && c->offset == 0)
		iov->iov_len = 0;   /* a fetch reports what it filled */
	size_t avail = iov_capacity(c, c->iov) - c->offset;
	*len = avail < max ? avail : max;
	char *piece = (char *)iov->iov_buf + c->offset;
	c->offset += *len;
	if (c->touched < c->iov + 1)
		c->touched = c->iov + 1;
	if (c->report && iov->iov_len < c->offset)
		iov->iov_len = c->offset;
	return piece;
}

int iol_emu_cursor_to_file(struct iol_emu_cursor *c, int fd, off_t off, size_t len)
{
	for (size_t done = 0, n; done < len; done += n) {
		char *piece = cursor_piece(c, len - done, &n);
		if (!piece)
			return EINVAL;
		int err = iol_emu_pwrite_all(fd, piece, n, off + (off_t)done);
		if (err)
			return err;
	}
	return 0;
}

int iol_emu_cursor_from_file(struct iol_emu_cursor *c, int fd, off_t off, size_t len,
			     bool zero_fill, size_t *got)
{
	bool at_eof = false;

	*got = 0;
	for (size_t done = 0, n, read_n; done < len; done += n) {
		char *piece = cursor_piece(c, len - done, &n);
		if (!piece)
			return EINVAL;
		read_n = 0;
		if (!at_eof) {
			int err = iol_emu_pread_all(fd, piece, n, off + (off_t)done, &read_n);
			if (err)
				return err;
			*got += read_n;
			at_eof = read_n < n;
		}
		if (at_eof && !zero_fill) {
			c->offset -= n - read_n;   /* give back what was not filled */
			if (c->report)
				c->sgl->sg_iovs[c->iov].iov_len = c->offset;
			return 0;
		}
		memset(piece + read_n, 0, n - read_n);
	}
	return 0;
}
