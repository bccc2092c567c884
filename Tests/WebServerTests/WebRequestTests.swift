import MPDProtocol
import Testing
@testable import WebServer

/// What a request is reduced to before routing: decoded paths that cannot smuggle a way out, queries and forms,
/// credentials.
@Suite struct WebRequestTests {
    @Test func pathsAndQueriesAreDecoded() {
        let request = WebRequest(method: "GET", target: "/music/A%20B/%E9%9B%A8.lyrics?uri=x%2By+z&format=lrc&bad=%zz")
        #expect(request.path == "/music/A B/雨.lyrics")
        #expect(request.query == ["uri": "x+y z", "format": "lrc"])
    }

    @Test(arguments: ["/%zz", "/a%2", "/a%00b", "/%ff%fe"])
    func brokenEncodingsHaveNoPath(target: String) {
        #expect(WebRequest(method: "GET", target: target).path == nil)
    }

    @Test(arguments: [("/", true), ("/music/A/B.lyrics", true), ("/music/A/", true), ("/music/../x", false),
                      ("/music/./x", false), ("/music//x", false), ("/music/a\\b", false), ("music/x", false),
                      ("/..", false), ("/music/A..B/c", true)])
    func onlyPathsThatStayWhereTheyStartAreSafe(path: String, safe: Bool) {
        #expect(Router.safe(path) == safe)
    }

    @Test func formBodiesAddToTheQuery() {
        let request = WebRequest(method: "POST", target: "/api/playid?id=1",
                                 headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                 body: Array("id=7&x=%41".utf8))
        #expect(request.query == ["id": "7", "x": "A"])
        #expect(request.header("content-type") == "application/x-www-form-urlencoded")
    }
}

/// MPD's answers as the bridge reads them.
@Suite struct ProtocolBridgeTests {
    @Test func pairsBinaryAndOK() throws {
        let bytes = Array("size: 5\ntype: image/png\nbinary: 3\n".utf8) + [0x0A, 0x00, 0xFF] + Array("\nOK\n".utf8)
        let answer = try ProtocolBridge.parse(bytes)
        #expect(answer.pairs.map(\.key) == ["size", "type"] && answer.binary == [0x0A, 0x00, 0xFF])
        #expect(try ProtocolBridge.parse(Array("file: a: b\nTitle:x\nOK\n".utf8)).pairs.map(\.value) == ["a: b", "x"])
    }

    @Test func acksBecomeFailuresWithTheirCode() {
        #expect(throws: ProtocolBridge.Failure(code: 50, message: "No such song")) {
            try ProtocolBridge.parse(Array("ACK [50@0] {play} No such song\n".utf8))
        }
        #expect(throws: ProtocolBridge.Failure(code: 0, message: "no answer")) { try ProtocolBridge.parse([]) }
    }

    @Test func argumentsAreQuotedAsMPDReadsThem() {
        #expect(ProtocolBridge.quote(#"a "b" \c"#) == #""a \"b\" \\c""#)
    }
}
