import MPDProtocol
import Testing
@testable import MPDServer

/// "Client to client": `subscribe`, `unsubscribe`, `channels`, `readmessages`, `sendmessage`, in memory. Expected
/// texts are MPD's (`src/command/MessageCommands.cxx`, unchanged in 0.24; the differential script `messages`).
@Suite struct MessageCommandsTests {
    @Test func messagesBetweenClients() async {
        let server = TestSession.server()
        let a = await TestSession(server: server)
        let b = await TestSession(server: server)
        #expect(await a.send("subscribe chat") == "OK\n")
        #expect(await a.send("subscribe chat") == "ACK [56@0] {subscribe} already subscribed to this channel\n")
        #expect(await a.send("subscribe \"bad name\"") == "ACK [2@0] {subscribe} invalid channel name\n")
        #expect(await b.send("channels") == "channel: chat\nOK\n")
        #expect(await b.send("sendmessage other hi") == "ACK [50@0] {sendmessage} nobody is subscribed to this channel\n")
        #expect(await b.send("sendmessage chat hi") == "OK\n")
        #expect(await a.send("readmessages") == "channel: chat\nmessage: hi\nOK\n")
        #expect(await a.send("readmessages") == "OK\n")
        #expect(await a.send("unsubscribe chat") == "OK\n")
        #expect(await a.send("unsubscribe chat") == "ACK [50@0] {unsubscribe} not subscribed to this channel\n")
    }

    /// Every subscriber gets each message, in order; channels are listed sorted, bytewise.
    @Test func messagesQueueInOrderForEverySubscriber() async {
        let server = TestSession.server()
        let a = await TestSession(server: server)
        let b = await TestSession(server: server)
        #expect(await a.send("subscribe beta") == "OK\n")
        #expect(await a.send("subscribe alpha") == "OK\n")
        #expect(await b.send("subscribe alpha") == "OK\n")
        #expect(await b.send("subscribe A.b_c-d:9") == "OK\n")
        #expect(await a.send("channels") == "channel: A.b_c-d:9\nchannel: alpha\nchannel: beta\nOK\n")
        #expect(await a.send("sendmessage alpha one") == "OK\n")
        #expect(await b.send("sendmessage alpha \"second one\"") == "OK\n")
        #expect(await b.send("sendmessage beta three") == "OK\n")
        #expect(await a.send("readmessages") == """
            channel: alpha
            message: one
            channel: alpha
            message: second one
            channel: beta
            message: three
            OK

            """)
        #expect(await b.send("readmessages") ==
                "channel: alpha\nmessage: one\nchannel: alpha\nmessage: second one\nOK\n")
    }

    /// `subscription` goes to every client of the partition; `message` to the subscribers.
    @Test func subscriptionAndMessageEventsWakeIdle() async {
        let server = TestSession.server()
        let a = await TestSession(server: server)
        let b = await TestSession(server: server)
        #expect(await b.send("idle subscription message") == "")
        #expect(await a.send("subscribe chat") == "OK\n")
        #expect(b.deliverBroadcast() == "changed: subscription\nOK\n")
        #expect(await b.send("subscribe chat") == "OK\n")
        // Taken before the next line, as the connection loop does: the message below is then the only news.
        #expect(b.deliverBroadcast() == "")
        #expect(await b.send("idle message") == "")
        #expect(await a.send("sendmessage chat \"hello there\"") == "OK\n")
        #expect(b.deliverBroadcast() == "changed: message\nOK\n")
        #expect(await b.send("readmessages") == "channel: chat\nmessage: hello there\nOK\n")
    }

    /// Letters, digits and `_-.:` only; at most 16 subscriptions per client.
    @Test func channelNamesAndTheSubscriptionLimit() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("subscribe \"\"") == "ACK [2@0] {subscribe} invalid channel name\n")
        #expect(await c.send("subscribe a/b") == "ACK [2@0] {subscribe} invalid channel name\n")
        #expect(await c.send("sendmessage \"\" x") == "ACK [2@0] {sendmessage} invalid channel name\n")
        #expect(await c.send("sendmessage \"a b\" x") == "ACK [2@0] {sendmessage} invalid channel name\n")
        #expect(await c.send("unsubscribe never") == "ACK [50@0] {unsubscribe} not subscribed to this channel\n")
        for index in 1...16 { #expect(await c.send("subscribe c\(index)") == "OK\n") }
        #expect(await c.send("subscribe c17") == "ACK [56@0] {subscribe} subscription list is full\n")
        #expect(await c.send("unsubscribe c16") == "OK\n")
        #expect(await c.send("subscribe c17") == "OK\n")
    }

    @Test func argumentsAndPermissions() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("subscribe") == "ACK [2@0] {subscribe} wrong number of arguments for \"subscribe\"\n")
        #expect(await c.send("sendmessage chat") ==
                "ACK [2@0] {sendmessage} wrong number of arguments for \"sendmessage\"\n")
        #expect(await c.send("channels x") == "ACK [2@0] {channels} wrong number of arguments for \"channels\"\n")
        // Reading needs `read`, sending `control`.
        let reader = await TestSession(server: TestSession.server { $0.defaultPermissions = [.read] })
        #expect(await reader.send("subscribe chat") == "OK\n")
        #expect(await reader.send("sendmessage chat hi") ==
                "ACK [4@0] {sendmessage} you don't have permission for \"sendmessage\"\n")
        let nobody = await TestSession(server: TestSession.server { $0.defaultPermissions = [] })
        #expect(await nobody.send("readmessages") ==
                "ACK [4@0] {readmessages} you don't have permission for \"readmessages\"\n")
    }
}
