import MPDProtocol
@testable import NoSignalConfig
import Testing

/// The syntax, as MPD's `src/config/File.cxx` and `src/util/Tokenizer.cxx` read it.
struct ConfigFileReaderTests {
    @Test func quotedValuesKeepSpaces() throws {
        let config = try parse(#"music_directory "/srv/My Music""#)
        #expect(config.musicDirectory == "/srv/My Music")
    }

    @Test func backslashMakesTheNextByteLiteral() throws {
        let config = try parse(#"music_directory "/a \"b\" \\c \x""#)
        #expect(config.musicDirectory == #"/a "b" \c x"#)
    }

    @Test func emptyValueIsAValue() throws {
        let config = try parse(#"password "@read""#)
        #expect(config.passwords == [PasswordEntry(password: "", permissions: .read)])
    }

    @Test func commentsBlankLinesAndWhitespace() throws {
        let config = try parse("""
            # a comment

            \t   # an indented comment
              port "6601"   # a comment after the value
            \tmax_connections\t"5"
            """)
        #expect(config.port == 6601)
        #expect(config.maxConnections == 5)
    }

    @Test func crlfLineEndings() throws {
        let config = try parse("port \"6601\"\r\naudio_output {\r\n type \"null\"\r\n}\r\n")
        #expect(config.port == 6601)
        #expect(config.audioOutputs.first?["type"] == "null")
    }

    @Test func lastLineWithoutNewline() throws {
        #expect(try parse("port \"6601\"").port == 6601)
    }

    @Test func blocksKeepKeysValuesAndLines() throws {
        let config = try parse("""
            audio_output {   # first
                type "alsa"
                name "Speakers"

                # a comment inside
                device "hw:0,0"
              }   # closing
            audio_output {
            type "null"
            name "Silent"
            }
            """)
        #expect(config.audioOutputs == [
            ConfigBlock(name: "audio_output", file: testFile, line: 1, values: [
                .init(key: "type", value: "alsa", line: 2),
                .init(key: "name", value: "Speakers", line: 3),
                .init(key: "device", value: "hw:0,0", line: 6),
            ]),
            ConfigBlock(name: "audio_output", file: testFile, line: 8, values: [
                .init(key: "type", value: "null", line: 9),
                .init(key: "name", value: "Silent", line: 10),
            ]),
        ])
        #expect(config.audioOutputs[0]["device"] == "hw:0,0")
        #expect(config.audioOutputs[0]["mixer_type"] == nil)
    }

    @Test func emptyBlock() throws {
        let config = try parse("audio_output {\n}")
        #expect(config.audioOutputs == [ConfigBlock(name: "audio_output", file: testFile, line: 1)])
    }

    @Test func blockErrorsPointAtTheKeyOrTheBlock() throws {
        let block = try #require(try parse("audio_output {\n type \"x\"\n}").audioOutputs.first)
        #expect(block.error("unknown output type", key: "type").description
                == "/etc/nosignal.conf:2: \"type\": unknown output type")
        #expect(block.error("missing \"name\"", key: "name").description
                == "/etc/nosignal.conf:1: \"audio_output\": missing \"name\"")
    }

    /// MPD ≥ 0.21.19 lets a later line (typically in an included file) override a non-repeatable option.
    @Test func repeatedOptionLastOneWins() throws {
        #expect(try parse("port \"6601\"\nport \"6602\"").port == 6602)
    }

    /// Only the value that wins is validated, as in MPD.
    @Test func overriddenValueIsNotValidated() throws {
        #expect(try parse("port \"abc\"\nport \"6602\"").port == 6602)
    }

    @Test func repeatableOptionAccumulates() throws {
        let config = try parse("""
            bind_to_address "any"
            bind_to_address "/run/nosignal/socket"
            """)
        #expect(config.bindToAddresses == ["any", "/run/nosignal/socket"])
    }

    /// MPD 0.24: a repeatable option with no value clears what came before.
    @Test func bareRepeatableOptionClearsTheList() throws {
        let config = try parse("""
            password "one@read"
            password
            password "two@add"
            bind_to_address "any"
            bind_to_address
            """)
        #expect(config.passwords == [PasswordEntry(password: "two", permissions: .add)])
        #expect(config.bindToAddresses == ["127.0.0.1"])
    }

    @Test func passwordIsHiddenWhenPrinted() throws {
        let config = try parse(#"password "hunter2@read""#)
        #expect(!String(describing: config).contains("hunter2"))
        #expect(!String(reflecting: config.passwords).contains("hunter2"))
        #expect(String(describing: config.passwords[0]) == "PasswordEntry(password: <hidden>, permissions: [read])")
    }

    @Test func splitLinesLikeMPD() {
        let lines = ConfigFileReader.splitLines(Array("a\r\nb\0c\n\nd".utf8)).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines == ["a", "b", "", "d"])
        #expect(ConfigFileReader.splitLines(Array("a\n".utf8)).count == 1)
        #expect(ConfigFileReader.splitLines([]).isEmpty)
    }

    @Test func globPattern() {
        func matches(_ pattern: String, _ name: String) -> Bool {
            GlobPattern.matches(Array(pattern.utf8), Array(name.utf8))
        }
        #expect(matches("*.conf", "a.conf"))
        #expect(matches("*.conf", ".conf"))
        #expect(!matches("*.conf", "a.conf.bak"))
        #expect(matches("?.conf", "a.conf"))
        #expect(!matches("?.conf", "ab.conf"))
        #expect(matches("a*b*c", "aXXbYYbc"))
        #expect(matches("*", ""))
        #expect(!matches("a", ""))
        #expect(matches("[x].conf", "[x].conf"))
    }
}
