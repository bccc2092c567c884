import ArgumentParser
import Foundation
import NetEase
import NetEaseLibrary
import NoSignalApp
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

    @Option(help: "Log in with a phone number instead (a last resort: NetEase often demands a captcha). The password is read from standard input.")
    var phone: String?

    @Option(help: "The phone number's country code.")
    var countryCode: String = "86"

    @Flag(help: "With --phone: have NetEase text a code and read that instead of the password.")
    var sms = false

    func run() async throws {
        let config = try options.load()
        let client = try NetEaseSession.client(config)
        if let phone {
            try phoneLogin(client, phone: phone)
            return
        }
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

extension Login {
    /// Phone login, with NetEase's usual refusals explained.
    func phoneLogin(_ client: NetEaseClient, phone: String) throws {
        let secret: LoginEndpoints.Cellphone.Secret
        if sms {
            _ = try NetEaseSession.send(client, LoginEndpoints.SMSCode(phone: phone, countryCode: countryCode))
            secret = .smsCode(try Self.readSecret("Code from the text message: ", hidden: false))
        } else {
            secret = .password(try Self.readSecret("NetEase password for \(phone): ", hidden: true))
        }
        do {
            _ = try client.send(LoginEndpoints.Cellphone(phone: phone, countryCode: countryCode, secret: secret))
        } catch {
            throw NetEaseSession.failure(Self.explain(error))
        }
        try NetEaseSession.printAccount(client, failure: "NetEase accepted the login but the account is missing")
    }

    static func explain(_ error: NetEaseError) -> String {
        let qr = "log in with the QR code instead (nosignal login)"
        switch error {
        case .api(code: 8821, _):
            return "NetEase wants a behaviour captcha (8821) that only its app can show; \(qr)"
        case .riskCheck:
            return "NetEase wants a risk verification (-462) that only its app can show; \(qr)"
        case .api(code: 502, _):
            return "wrong password or code (502)"
        case .api(code: 501, _):
            return "NetEase has no account with this phone number (501)"
        case .api(code: 509, _):
            return "too many wrong passwords (509); wait, or \(qr)"
        case .api(code: 503, _):
            return "wrong code (503)"
        default:
            return "NetEase: \(error)"
        }
    }

    /// A line from standard input; without echo when it is a terminal and `hidden`.
    static func readSecret(_ prompt: String, hidden: Bool) throws -> String {
        let line: String?
        if hidden, isatty(STDIN_FILENO) != 0, let typed = getpass(prompt) {
            line = String(cString: typed)
        } else {
            FileHandle.standardError.write(Data(prompt.utf8))
            line = readLine(strippingNewline: true)
        }
        guard let line, !line.isEmpty else { throw NetEaseSession.failure("nothing entered") }
        return line
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
        do { return try NetEaseService.makeClient(NetEaseOptions(config.netease)) } catch { throw failure("\(error)") }
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
