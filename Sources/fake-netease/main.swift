import FakeNetEase
import Foundation
import NetEase

/// `fake-netease --port N --key private.pem [--data DIR] [--qr-auto] [--url-lifetime SECONDS]`
///
/// Runs the fake NetEase server until killed, for `make demo` and scripts. A missing key file is created (RSA-1024,
/// by /usr/bin/openssl); the public half is written next to it and its path printed, for NoSignal's
/// `weapi_public_key`. `--qr-auto` makes QR codes scan after 3 s and confirm after 6 s, so a demo login needs no
/// phone; otherwise `POST /__fake/qr` drives them. `--data DIR` holds the generated media (`DIR/media-v2`: tone0–3
/// as .mp3 and .flac, their 3 s trial clips clip0–3.mp3, cover0–5.jpg; replace them with your own files of the same names to serve those); by default a
/// shared temporary directory, so the files are made once.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fake-netease: \(message)\n".utf8))
    exit(2)
}

// A parent may have blocked signals (test runners do) and children inherit the mask: unblock them, so "runs until
// killed" holds for SIGTERM and SIGINT.
var signals = sigset_t()
sigemptyset(&signals)
sigprocmask(SIG_SETMASK, &signals, nil)

nonisolated(unsafe) var arguments = CommandLine.arguments.dropFirst()

/// Unbuffered, so a script reading the port sees it at once.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func next(_ name: String) -> String {
    guard let value = arguments.popFirst() else { fail("\(name) needs a value") }
    return value
}

func openssl(_ arguments: [String]) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { fail("cannot run openssl: \(error)") }
    process.waitUntilExit()
    if process.terminationStatus != 0 { fail("openssl \(arguments.joined(separator: " ")) failed") }
}

var port: UInt16 = 0
var keyPath: String?
var dataDirectory: String?
var qrAuto = false
var urlLifetime: TimeInterval?
while let argument = arguments.popFirst() {
    switch argument {
    case "--port":
        guard let number = UInt16(next(argument)) else { fail("--port needs a number") }
        port = number
    case "--key": keyPath = next(argument)
    case "--data": dataDirectory = next(argument)
    case "--qr-auto": qrAuto = true
    case "--url-lifetime":
        guard let seconds = TimeInterval(next(argument)) else { fail("--url-lifetime needs seconds") }
        urlLifetime = seconds
    case "-h", "--help":
        say("usage: fake-netease --port N --key private.pem [--data DIR] [--qr-auto] [--url-lifetime SECONDS]")
        exit(0)
    default: fail("unknown argument \(argument)")
    }
}
guard let keyPath else { fail("--key private.pem is required") }
if !FileManager.default.fileExists(atPath: keyPath) { openssl(["genrsa", "-out", keyPath, "1024"]) }
let publicKeyPath = (keyPath.hasSuffix(".pem") ? String(keyPath.dropLast(4)) : keyPath) + ".public.pem"
openssl(["rsa", "-in", keyPath, "-pubout", "-out", publicKeyPath])

do {
    let pem = try String(contentsOfFile: keyPath, encoding: .utf8)
    var options = FakeNetEaseServer.Options(privateKey: try RSAPrivateKey(pem: pem))
    options.port = port
    if let dataDirectory { options.dataDirectory = dataDirectory }
    if qrAuto { options.qrMode = .automatic(scanAfter: 3, confirmAfter: 6) }
    if let urlLifetime { options.urlLifetime = urlLifetime }
    let server = try FakeNetEaseServer(options: options)
    try server.start()
    say("port \(server.port)")
    say("public key \(publicKeyPath)")
    say("demo MUSIC_U \(FakeNetEaseServer.demoSession.musicU)")
    say("demo __csrf \(FakeNetEaseServer.demoSession.csrf)")
    say("demo phone \(DemoCatalog.demoPhone) password \(DemoCatalog.demoPassword)")
    while true { sleep(3600) }
} catch {
    fail("\(error)")
}
