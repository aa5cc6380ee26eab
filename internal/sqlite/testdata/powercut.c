// A power cut, simulated for one directory: loaded with LD_PRELOAD into a
// process that writes SQLite files under $POWERCUT_DIR, it copies each file
// to $POWERCUT_MIRROR every time the process fsyncs it (after the fsync).
// The mirror then holds what a disk that loses every write not yet flushed
// would hold if the power went at that moment: each file as of its last
// fsync (a file never fsynced: absent). The -shm file is left out (SQLite
// rebuilds it from the log). fsync from Go (syscall.Fsync, not libc) is not
// seen; the test keeps the log below the size at which the checkpointer
// fsyncs from Go.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void mirror(int fd) {
	const char *dir = getenv("POWERCUT_DIR"), *out = getenv("POWERCUT_MIRROR");
	if (!dir || !out) return;
	char link[64], path[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0) return;
	path[n] = 0;
	size_t dl = strlen(dir);
	if (strncmp(path, dir, dl) != 0 || path[dl] != '/') return;
	const char *base = path + dl + 1;
	if (strchr(base, '/') || (n > 4 && strcmp(path + n - 4, "-shm") == 0)) return;
	char tmp[PATH_MAX], dst[PATH_MAX], buf[1 << 16];
	snprintf(dst, sizeof dst, "%s/%s", out, base);
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", out, base);
	int in = open(path, O_RDONLY);
	if (in < 0) return;
	int o = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (o < 0) { close(in); return; }
	ssize_t r;
	while ((r = read(in, buf, sizeof buf)) > 0) {
		if (write(o, buf, r) != r) break;
	}
	close(in);
	close(o);
	rename(tmp, dst);
}

int fsync(int fd) {
	static int (*real)(int);
	if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	int rc = real(fd);
	if (rc == 0) mirror(fd);
	return rc;
}

int fdatasync(int fd) {
	static int (*real)(int);
	if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	int rc = real(fd);
	if (rc == 0) mirror(fd);
	return rc;
}
