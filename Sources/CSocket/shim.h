// accept4 and eventfd, which the Glibc module does not export (glibc declares them only with _GNU_SOURCE).
#include <sys/socket.h>

extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
extern int eventfd(unsigned int initial, int flags);
