#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The text of an errno value, for error messages.
func errnoText(_ code: Int32 = errno) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
}

/// A joinable POSIX thread running `body`. The outputs' helper threads (httpd's socket loop) are plain threads
/// because the module uses nothing but the system: no Foundation, no NIO.
final class POSIXThread: @unchecked Sendable {
    private var thread = pthread_t()
    private var joined = false

    init(_ body: @escaping @Sendable () -> Void) {
        final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed: \(errnoText(result))")
    }

    /// Waits for the thread to end. Call once, from another thread.
    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}

// The system calls under names that the sinks' own `open`/`write`/`close` methods do not shadow.
#if canImport(Glibc)
func sysOpen(_ path: String, _ flags: Int32) -> Int32 { Glibc.open(path, flags) }
func sysRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Glibc.read(fd, buffer, count) }
func sysWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Glibc.write(fd, buffer, count) }
@discardableResult func sysClose(_ fd: Int32) -> Int32 { Glibc.close(fd) }
#elseif canImport(Darwin)
func sysOpen(_ path: String, _ flags: Int32) -> Int32 { Darwin.open(path, flags) }
func sysRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Darwin.read(fd, buffer, count) }
func sysWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Darwin.write(fd, buffer, count) }
@discardableResult func sysClose(_ fd: Int32) -> Int32 { Darwin.close(fd) }
#endif
