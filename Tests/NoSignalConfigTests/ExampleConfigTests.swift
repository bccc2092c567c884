import Foundation
import MPDProtocol
@testable import NoSignalConfig
import Testing

/// `conf/nosignal.conf` is the documented example; it must keep parsing, both as shipped
/// (everything commented out) and with every setting uncommented.
struct ExampleConfigTests {
    static let examplePath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("conf/nosignal.conf").path

    @Test func shippedExampleGivesTheDefaults() throws {
        let config = try Configuration.load(path: Self.examplePath, environment: testEnvironment)
        var expected = Configuration.defaults(environment: testEnvironment)
        expected.sourceFile = Self.examplePath
        #expect(config == expected)
    }

    @Test func everyExampleSettingParsesWhenUncommented() throws {
        let text = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        let setting = /^#((?:    )?[a-z_]+ +"[^"]*"|\}|[a-z_]+ \{)$/
        var uncommented = 0
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            guard let match = line.wholeMatch(of: setting) else { return line }
            uncommented += 1
            return match.1
        }
        let config = try Configuration.parse(text: lines.joined(separator: "\n"), file: Self.examplePath,
                                             environment: testEnvironment)
        #expect(uncommented > 40)
        #expect(config.warnings.isEmpty)
        #expect(config.bindToAddresses == ["127.0.0.1", "any", "/home/user/.local/share/nosignal/socket"])
        #expect(config.passwords.count == 2)
        #expect(config.defaultPermissions == .all)
        #expect(config.audioOutputs.map { $0["type"] } == ["alsa", "tcp", "fifo", "httpd"])
        #expect(config.httpPort == 6680 && config.zeroconfEnabled && config.zeroconfName == "NoSignal @ %h")
        #expect(config.netease.realIP == "116.25.146.177")
        #expect(config.mixerType == "software")
    }

    /// The example documents each honoured option, so a new field cannot be added without documenting it.
    @Test func exampleMentionsEveryHonouredOption() throws {
        let text = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        for name in OptionCatalog.honouredOptions.union(OptionCatalog.honouredBlocks).union(OptionCatalog.neteaseKeys) {
            #expect(text.contains("#\(name) ") || text.contains("#    \(name) "), "\(name) is not in the example")
        }
    }
}
