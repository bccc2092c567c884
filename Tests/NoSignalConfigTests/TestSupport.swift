import Foundation
@testable import NoSignalConfig

/// The file name every in-memory test pretends to read, so expected messages show a realistic location.
let testFile = "/etc/nosignal.conf"
let testEnvironment = ["HOME": "/home/user"]

func parse(_ text: String, environment: [String: String] = testEnvironment) throws(ConfigError) -> Configuration {
    try Configuration.parse(text: text, file: testFile, environment: environment)
}

/// The one-line message a bad configuration gives, or nil when it parses.
func failure(_ text: String, environment: [String: String] = testEnvironment) -> String? {
    do {
        _ = try parse(text, environment: environment)
        return nil
    } catch {
        return error.description
    }
}

/// A fresh directory for include tests, removed by the caller with `cleanUp()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("nosignal-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
