import Foundation
import Testing
@testable import NoSignalConfig

/// `include` and `include_optional`, on real files.
struct IncludeTests {
    @Test func includeIsRelativeToTheIncludingFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("conf/outputs.conf", """
            audio_output {
                type "null"
                name "Silent"
            }
            filesystem_charset "UTF-8"
            """)
        let main = try directory.write("conf/nosignal.conf", """
            port "6601"
            include "outputs.conf"
            """)
        let config = try Configuration.load(path: main, environment: testEnvironment)
        #expect(config.port == 6601)
        #expect(config.sourceFile == main)
        #expect(config.audioOutputs == [
            ConfigBlock(name: "audio_output", file: directory.path + "/conf/outputs.conf", line: 1, values: [
                .init(key: "type", value: "null", line: 2),
                .init(key: "name", value: "Silent", line: 3),
            ]),
        ])
        #expect(config.warnings == [
            "\(directory.path)/conf/outputs.conf:5: option \"filesystem_charset\" is not supported by NoSignal yet and is ignored",
        ])
    }

    @Test func absoluteIncludeAndOverride() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let shared = try directory.write("shared.conf", "port \"6601\"\nmax_connections \"5\"\n")
        let main = try directory.write("sub/main.conf", """
            include "\(shared)"
            port "6602"
            """)
        let config = try Configuration.load(path: main, environment: testEnvironment)
        #expect(config.port == 6602)
        #expect(config.maxConnections == 5)
    }

    @Test func includeOptionalMayBeMissing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let main = try directory.write("main.conf", """
            include_optional "local.conf"
            include_optional "missing/*.conf"
            port "6601"
            """)
        #expect(try Configuration.load(path: main, environment: testEnvironment).port == 6601)
        try directory.write("local.conf", "port \"6602\"\n")
        #expect(try Configuration.load(path: main, environment: testEnvironment).port == 6601)
        try directory.write("main2.conf", "port \"6601\"\ninclude_optional \"local.conf\"\n")
        #expect(try Configuration.load(path: directory.path + "/main2.conf", environment: testEnvironment).port == 6602)
    }

    @Test func wildcardIncludesInByteOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("conf.d/20-b.conf", "bind_to_address \"b\"\n")
        try directory.write("conf.d/10-a.conf", "bind_to_address \"a\"\n")
        try directory.write("conf.d/30-c.conf.disabled", "bind_to_address \"c\"\n")
        try directory.write("conf.d/Z.conf", "bind_to_address \"Z\"\n")
        let main = try directory.write("main.conf", "include \"conf.d/*.conf\"\n")
        #expect(try Configuration.load(path: main, environment: testEnvironment).bindToAddresses == ["a", "b", "Z"])
        let none = try directory.write("none.conf", "include \"conf.d/*.none\"\n")
        #expect(try Configuration.load(path: none, environment: testEnvironment).bindToAddresses == ["127.0.0.1"])
    }

    @Test func includedFileErrorsNameThatFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("bad.conf", "\nport \"x\"\n")
        let main = try directory.write("main.conf", "include \"bad.conf\"\n")
        #expect(throws: ConfigError(file: directory.path + "/bad.conf", line: 2, message: #""port": not a number: "x""#)) {
            try Configuration.load(path: main, environment: testEnvironment)
        }
        try directory.write("syntax.conf", "audio_output {\n")
        let main2 = try directory.write("main2.conf", "include \"syntax.conf\"\n")
        #expect(throws: ConfigError(file: directory.path + "/syntax.conf", line: 1,
                                    message: #"missing closing '}' for "audio_output""#)) {
            try Configuration.load(path: main2, environment: testEnvironment)
        }
    }

    @Test func missingIncludeIsAnError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let main = try directory.write("main.conf", "port \"6601\"\ninclude \"missing.conf\"\n")
        #expect(throws: ConfigError(file: main, line: 2,
                                    message: "\"include\": file not found: \"\(directory.path)/missing.conf\"")) {
            try Configuration.load(path: main, environment: testEnvironment)
        }
        let listing = try directory.write("listing.conf", "include \"nowhere/*.conf\"\n")
        #expect(throws: ConfigError(file: listing, line: 1,
                                    message: "\"include\": cannot list directory \"\(directory.path)/nowhere\"")) {
            try Configuration.load(path: listing, environment: testEnvironment)
        }
    }

    @Test func includeLoopIsAnError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let a = try directory.write("a.conf", "include \"b.conf\"\n")
        let b = try directory.write("b.conf", "\ninclude \"a.conf\"\n")
        #expect(throws: ConfigError(file: b, line: 2,
                                    message: "\"include\": include loop: \"\(a)\" is already being read")) {
            try Configuration.load(path: a, environment: testEnvironment)
        }
    }

    /// A non-repeatable block defined in two files names both.
    @Test func redefinedBlockAcrossFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let other = try directory.write("other.conf", "netease {\n}\n")
        let main = try directory.write("main.conf", "include \"other.conf\"\nnetease {\n}\n")
        #expect(throws: ConfigError(file: main, line: 2,
                                    message: "\"netease\" is first defined at \(other):1 and redefined here")) {
            try Configuration.load(path: main, environment: testEnvironment)
        }
    }

    @Test func tildeInIncludePath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("extra.conf", "port \"6603\"\n")
        let main = try directory.write("main.conf", "include \"~/extra.conf\"\n")
        #expect(try Configuration.load(path: main, environment: ["HOME": directory.path]).port == 6603)
    }
}
