import ArgumentParser
import Foundation
import NetEase
import NetEaseLibrary
import NoSignalConfig

/// `nosignal login`, `logout`, `whoami`: the NetEase account the server uses. The cookies go where the server
/// reads them (the configuration's `cookie_file`, mode 0600); their values are never printed.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Log in to NetEase Cloud Music: scan a QR code with the NetEase app.")

    @OptionGroup var options: ConfigOptions

    @Option(help: "Import a browser cookie instead (e.g. 'MUSIC_U=…'), and check that it is logged in.")
    var cookie: String?

    @Option(help: "Seconds to wait for the QR code to be scanned and confirmed.")
    var timeout: Double = 180

    func run() async throws {
        let config = try options.load()
        let client = try NetEaseSession.client(config)
        if let cookie {
            for pair in cookie.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, !parts[0].isEmpty else { continue }
                try client.cookies.set(Cookie(name: parts[0], value: parts[1]))
            }
            try NetEaseSession.printAccount(client, failure: "the cookie is not logged in")
            return
        }
        let key = try NetEaseSession.send(client, LoginEndpoints.QRKey()).unikey
        let text = LoginEndpoints.qrCodeText(key: key, deviceID: client.configuration.deviceID,
                                             milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        print("Scan this code with the NetEase Cloud Music app (我的 → 扫一扫):\n")
        print(try QRCode(encoding: text).terminalText(), terminator: "")
        print("\n\(text)\n")
        let deadline = Date().addingTimeInterval(timeout)
        var announced = false
        while Date() < deadline {
            let check = try NetEaseSession.send(client, LoginEndpoints.QRCheck(key: key))
            switch check.state {
            case .expired:
                throw NetEaseSession.failure("the QR code expired; run nosignal login again")
            case .waitingForScan:
                break
            case .waitingForConfirmation:
                if !announced {
                    print("Scanned by \(check.nickname ?? "someone"); confirm the login in the app.")
                    announced = true
                }
            case .authorized:
                try NetEaseSession.printAccount(client, failure: "NetEase accepted the code but the login is missing")
                return
            }
            try await Task.sleep(for: .seconds(NetEaseSession.pollInterval))
        }
        throw NetEaseSession.failure("nobody confirmed the login within \(Int(timeout)) s")
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "Log out of NetEase.")

    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let config = try options.load()
        let client = try NetEaseSession.client(config)
        _ = try? client.send(LoginEndpoints.Logout())
        try client.cookies.removeAll()
        print("Logged out; the server uses NetEase's guest mode.")
    }
}

struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Show the NetEase account in use.")

    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let config = try options.load()
        try NetEaseSession.printAccount(try NetEaseSession.client(config), failure: "not logged in (guest mode)")
    }
}

enum NetEaseSession {
    /// Seconds between QR checks (NetEase's web page polls every 2 s).
    static let pollInterval: Double = 2

    static func client(_ config: Configuration) throws -> NetEaseClient {
        do { return try NetEaseService.makeClient(config.netease) } catch { throw failure("\(error)") }
    }

    static func send<E: NetEaseEndpoint>(_ client: NetEaseClient, _ endpoint: E) throws -> E.Response {
        do { return try client.send(endpoint) } catch { throw failure("NetEase: \(error)") }
    }

    static func printAccount(_ client: NetEaseClient, failure text: String) throws {
        let status = try send(client, LoginEndpoints.Status())
        guard status.isLoggedIn, let profile = status.profile else { throw failure(text) }
        print("Logged in as \(profile.nickname ?? "?") (user \(profile.id)).")
    }

    static func failure(_ text: String) -> ExitCode {
        FileHandle.standardError.write(Data("nosignal: \(text)\n".utf8))
        return ExitCode(1)
    }
}
