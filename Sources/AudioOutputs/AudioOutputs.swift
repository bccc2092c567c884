// The outputs that need only the system: null, fifo, pipe, httpd.
