import FakeNetEase
import Foundation
import NetEase
import Testing

/// The `fake-netease` executable as `make demo` and scripts use it: makes its key pair, prints its port and public
/// key path, serves until terminated, and takes faults over HTTP.
@Suite struct ExecutableTests {
    static let binary: String? = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/fake-netease",
            FileManager.default.currentDirectoryPath + "/.build/debug/fake-netease",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    @Test(.enabled(if: binary != nil, "needs the fake-netease executable built (swift build --build-tests)"))
    func servesWithItsOwnKeyPair() throws {
        let directory = NSTemporaryDirectory() + "fake-netease-exe-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.binary))
        process.arguments = ["--port", "0", "--key", directory + "/private.pem", "--qr-auto"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            let until = Date().addingTimeInterval(3)
            while process.isRunning && Date() < until { usleep(20_000) }
            // Never leave the server behind, even if SIGTERM were blocked.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("public key ") || !text.hasSuffix("\n"), Date() < deadline {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        let lines = text.split(separator: "\n")
        let port = try #require(lines.first { $0.hasPrefix("port ") }.flatMap { UInt16($0.dropFirst(5)) })
        let keyPath = try #require(lines.first { $0.hasPrefix("public key ") }.map { String($0.dropFirst(11)) })
        #expect(keyPath == directory + "/private.public.pem")
        let publicKey = try RSAPublicKey(pem: String(contentsOfFile: keyPath, encoding: .utf8))

        // A raw weapi request with the printed key, through curl: the executable decrypts it.
        let (params, encSecKey) = NetEaseCrypto.weapi(#"{"type":1,"csrf_token":""}"#, publicKey: publicKey)
        let key = try Self.curl(["--data-binary", FormCoding.encode([("params", params), ("encSecKey", encSecKey)]),
                                 "http://127.0.0.1:\(port)/weapi/login/qrcode/unikey"])
        #expect(key["code"] as? Int == 200)
        #expect((key["unikey"] as? String)?.isEmpty == false)

        let fault = #"{"path":"/api/toplist","fault":"status","value":405}"#
        #expect(try Self.curl(["--data-binary", fault, "http://127.0.0.1:\(port)/__fake/fault"])["ok"] as? Bool == true)
        let limited = try Self.curl(["-H", "Cookie: MUSIC_U=\(FakeNetEaseServer.demoSession.musicU)", "-d", "x=1",
                                     "http://127.0.0.1:\(port)/api/toplist"])
        #expect(limited["code"] as? Int == 405)

        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
    }

    static func curl(_ arguments: [String]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s", "--max-time", "10"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
