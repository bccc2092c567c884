import ArgumentParser
import Foundation
import Glibc
import SnapcastControl

/// `nosignal snapcast-control`: what snapserver's `controlscript=` runs (through the installed
/// `nosignal-snapcast-control` wrapper). It finds NoSignal as mpc does (MPD_HOST, MPD_PORT).
struct SnapcastControlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapcast-control",
        abstract: "Snapcast's control script: NoSignal's song and controls in every Snapcast app (run by snapserver).")

    @Option(help: "The stream's id (passed by snapserver).")
    var stream: String?
    @Option(name: .customLong("snapcast-host"), help: "snapserver's host (passed by snapserver).")
    var snapcastHost: String?
    @Option(name: .customLong("snapcast-port"), help: "snapserver's control port (passed by snapserver).")
    var snapcastPort: Int?
    @Option(name: .customLong("mpd-host"), help: "NoSignal's host or socket; default MPD_HOST or localhost.")
    var mpdHost: String?
    @Option(name: .customLong("mpd-port"), help: "NoSignal's port; default MPD_PORT or 6600.")
    var mpdPort: Int?
    @Option(name: .customLong("http-port"),
            help: "NoSignal's http_port, for cover links (default 6680 when it answers; else covers are sent).")
    var httpPort: Int?

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        var host = mpdHost ?? environment["MPD_HOST"] ?? "localhost"
        if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
        let port = httpPort ?? 6680
        let coverBase = !host.hasPrefix("/") && Self.answers(host: host, port: port) ? "http://\(host):\(port)" : nil
        let control = SnapcastControl(environment: environment, host: mpdHost, port: mpdPort, coverBase: coverBase)
        throw ExitCode(control.run())
    }

    /// Whether something listens on host:port (NoSignal's HTTP server).
    static func answers(host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else { return false }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0
    }
}
