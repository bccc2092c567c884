// accept4 and eventfd, which the Glibc module does not export (glibc declares them only with _GNU_SOURCE). Declared
// here without including a system header: one included here would belong to this module, and its other
// declarations (SOCK_STREAM, ...) would go missing from the Glibc module in files that do not import this one.
struct sockaddr;
extern int accept4(int fd, struct sockaddr *address, unsigned int *length, int flags);
extern int eventfd(unsigned int initial, int flags);
