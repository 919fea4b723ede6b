/*
 * The installer's steps that need no event loop: the SHA-256 of the
 * downloaded tarball (OpenSSL's libcrypto), the check of the expected
 * digest, the extraction with libarchive under a private directory with
 * every entry checked first, and the `--version` line.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#include "perfspect.h"

/* A PerfSpect tarball is ~20 MiB; refuse to write much more than that. */
#define PS_EXTRACT_MAX_BYTES	(512ull << 20)
#define PS_EXTRACT_MAX_ENTRIES	10000

int
ps_sha256_fd(int fd, char hex[65])
{
	EVP_MD_CTX *md;
	unsigned char buf[65536], dig[EVP_MAX_MD_SIZE];
	unsigned int diglen = 0, i;
	ssize_t n;
	int rc = -EIO;

	if ((md = EVP_MD_CTX_new()) == NULL)
		return (-ENOMEM);
	if (lseek(fd, 0, SEEK_SET) != 0 ||
	    EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1)
		goto out;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (EVP_DigestUpdate(md, buf, n) != 1)
			goto out;
	if (n < 0) {
		rc = -errno;
		goto out;
	}
	if (EVP_DigestFinal_ex(md, dig, &diglen) != 1 || diglen != 32)
		goto out;
	for (i = 0; i < diglen; i++)
		snprintf(hex + 2 * i, 3, "%02x", dig[i]);
	rc = 0;
out:
	EVP_MD_CTX_free(md);
	return (rc);
}

int
ps_sha256_match(const char *got, const char *want)
{
	size_t len, i;

	while (isspace((unsigned char)*want))
		want++;
	len = strlen(want);
	while (len > 0 && isspace((unsigned char)want[len - 1]))
		len--;
	if (len != 64)
		return (-EINVAL);
	for (i = 0; i < 64; i++)
		if (!isxdigit((unsigned char)want[i]))
			return (-EINVAL);
	return (strncasecmp(got, want, 64) == 0 ? 0 : -EBADMSG);
}

int
ps_version_line_ok(const char *line, size_t len)
{
	static const char prefix[] = "perfspect version ";

	return (len > sizeof(prefix) - 1 &&
	    memcmp(line, prefix, sizeof(prefix) - 1) == 0);
}

static int
entry_type(struct archive_entry *e)
{
	if (archive_entry_hardlink(e) != NULL)
		return (PS_ENT_HARDLINK);
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		return (PS_ENT_FILE);
	case AE_IFDIR:
		return (PS_ENT_DIR);
	case AE_IFLNK:
		return (PS_ENT_SYMLINK);
	default:
		return (PS_ENT_OTHER);
	}
}

/* Check an entry and root it under dir; 0 or -EPERM with err set. */
static int
entry_prepare(struct archive_entry *e, const char *dir, char *err,
    size_t errlen)
{
	const char *path = archive_entry_pathname(e), *link = NULL;
	char why[128], full[PATH_MAX];
	int type = entry_type(e);

	if (path == NULL)
		path = "";
	if (type == PS_ENT_HARDLINK)
		link = archive_entry_hardlink(e);
	else if (type == PS_ENT_SYMLINK)
		link = archive_entry_symlink(e);
	if (ps_archive_path_check(path, strlen(path), type, link,
	    link != NULL ? strlen(link) : 0, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "archive entry \"%.200s\": %s", path,
		    why);
		return (-EPERM);
	}
	snprintf(full, sizeof(full), "%s/%s", dir, path);
	archive_entry_set_pathname(e, full);
	if (type == PS_ENT_HARDLINK) {
		snprintf(full, sizeof(full), "%s/%s", dir, link);
		archive_entry_set_hardlink(e, full);
	}
	/* Root owns what it installs; nothing setuid or writable by others. */
	archive_entry_set_perm(e, archive_entry_perm(e) & 0755);
	return (0);
}

static int
copy_data(struct archive *in, struct archive *out)
{
	const void *buf;
	size_t len;
	la_int64_t off;
	int r;

	while ((r = archive_read_data_block(in, &buf, &len, &off)) ==
	    ARCHIVE_OK)
		if (archive_write_data_block(out, buf, len, off) != ARCHIVE_OK)
			return (-1);
	return (r == ARCHIVE_EOF ? 0 : -1);
}

static int
extract_entries(struct archive *in, struct archive *out, const char *dir,
    char *err, size_t errlen)
{
	struct archive_entry *e;
	unsigned long long total = 0;
	unsigned n = 0;
	int r;

	while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		if (++n > PS_EXTRACT_MAX_ENTRIES) {
			snprintf(err, errlen, "archive has over %d entries",
			    PS_EXTRACT_MAX_ENTRIES);
			return (-EFBIG);
		}
		total += archive_entry_size(e) > 0 ? archive_entry_size(e) : 0;
		if (total > PS_EXTRACT_MAX_BYTES) {
			snprintf(err, errlen, "archive unpacks to over %llu "
			    "bytes", PS_EXTRACT_MAX_BYTES);
			return (-EFBIG);
		}
		if (entry_prepare(e, dir, err, errlen) != 0)
			return (-EPERM);
		if (archive_write_header(out, e) != ARCHIVE_OK ||
		    copy_data(in, out) != 0 ||
		    archive_write_finish_entry(out) != ARCHIVE_OK) {
			snprintf(err, errlen, "extracting \"%.200s\": %s",
			    archive_entry_pathname(e),
			    archive_error_string(out) ? archive_error_string(
			    out) : archive_error_string(in) ?
			    archive_error_string(in) : "failed");
			return (-EIO);
		}
	}
	if (r != ARCHIVE_EOF) {
		snprintf(err, errlen, "reading the archive: %s",
		    archive_error_string(in) ? archive_error_string(in) :
		    "failed");
		return (-EIO);
	}
	if (n == 0) {
		snprintf(err, errlen, "the archive is empty");
		return (-EINVAL);
	}
	return (0);
}

int
ps_archive_extract(int fd, const char *dir, char *err, size_t errlen)
{
	struct archive *in, *out;
	int rc = -EIO;

	in = archive_read_new();
	out = archive_write_disk_new();
	if (in == NULL || out == NULL) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	archive_read_support_filter_gzip(in);
	archive_read_support_format_tar(in);
	/* Belt and braces: the checks above already refuse these. */
	archive_write_disk_set_options(out, ARCHIVE_EXTRACT_PERM |
	    ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
	    ARCHIVE_EXTRACT_NO_OVERWRITE);
	if (lseek(fd, 0, SEEK_SET) != 0 ||
	    archive_read_open_fd(in, fd, 65536) != ARCHIVE_OK) {
		snprintf(err, errlen, "not a tar.gz archive: %s",
		    archive_error_string(in) ? archive_error_string(in) :
		    "unreadable");
		goto out;
	}
	rc = extract_entries(in, out, dir, err, errlen);
out:
	if (out != NULL) {
		archive_write_close(out);
		archive_write_free(out);
	}
	if (in != NULL)
		archive_read_free(in);
	return (rc);
}
