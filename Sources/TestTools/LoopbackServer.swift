import Foundation

/// A real server (pyftpdlib, Python's http.server, an ffmpeg sender…) run by a test on 127.0.0.1 and stopped when
/// the value goes away. Its output goes to a file, quoted when it fails to start.
public final class LoopbackServer: @unchecked Sendable {
    public let port: UInt16
    private let process = Process()
    private let logPath: String

    /// Starts `arguments` (the tool first, found on PATH). With `waitForTCP`, returns once something accepts a
    /// connection on `port` (a server that takes one client only, like `ffmpeg -listen 1`, must not be probed).
    public init(_ arguments: [String], port: UInt16, waitForTCP: Bool = true, directory: String? = nil) throws {
        self.port = port
        logPath = NSTemporaryDirectory() + "nosignal-server-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: logPath)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        guard waitForTCP else { return }
        for _ in 0..<400 {
            if Self.accepts(port) { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        stop()
        throw CommandLineTool.Failure(description: "\(arguments.joined(separator: " ")) did not listen on \(port): \(log)")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// What the server wrote so far.
    public var log: String {
        FileManager.default.contents(atPath: logPath).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    public func stop() {
        if process.isRunning {
            // SIGKILL: a child of the test process inherits its blocked signals, and SIGTERM would wait forever.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// A port nothing listens on now (TCP; the same number is free for UDP as well in practice on loopback).
    public static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        } == 0
    }

    /// A gopher server in Python (RFC 1436, item type 9: the file whose name is the selector), for `gopher://`.
    public static let gopherScript = """
        import os, socketserver, sys
        root, port = sys.argv[1], int(sys.argv[2])
        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                selector = self.rfile.readline().decode().strip()
                path = os.path.join(root, os.path.basename(selector))
                if os.path.isfile(path):
                    with open(path, 'rb') as f:
                        self.wfile.write(f.read())
                else:
                    self.wfile.write(b'3not found\\terror.host\\t1\\r\\n.\\r\\n')
        socketserver.ThreadingTCPServer.allow_reuse_address = True
        with socketserver.ThreadingTCPServer(('127.0.0.1', port), Handler) as server:
            server.serve_forever()
        """
}
