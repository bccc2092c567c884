import MPDProtocol
import Testing
@testable import MPDServer

/// "Partition commands": `partition`, `listpartitions`, `newpartition`, `delpartition`, `moveoutput`, over outputs
/// in memory (`AudioServer`). Expected texts are MPD 0.24's (`src/command/PartitionCommands.cxx`; the differential
/// scripts `playback` and `partitions_idle`, the latter recorded against MPD 0.24.9).
@Suite struct PartitionCommandsTests {
    @Test func newListSwitchDelete() async {
        let s = AudioServer()
        let c = await s.client()
        #expect(await c.send("listpartitions") == "partition: default\nOK\n")
        #expect(await c.send("newpartition kitchen") == "OK\n")
        #expect(await c.send("listpartitions") == "partition: default\npartition: kitchen\nOK\n")
        #expect(await c.send("partition kitchen") == "OK\n")
        // A new partition has its own queue and options, no outputs and so no mixer.
        #expect(await c.send("status") == """
            repeat: 0
            random: 0
            single: 0
            consume: 0
            partition: kitchen
            playlist: 1
            playlistlength: 0
            mixrampdb: 0
            state: stop
            lastloadedplaylist: 
            OK

            """)
        #expect(await c.send("outputs") == "OK\n")
        #expect(await c.send("partition default") == "OK\n")
        #expect(await c.send("delpartition kitchen") == "OK\n")
        #expect(await c.send("listpartitions") == "partition: default\nOK\n")
    }

    /// `newpartition` announces `partition` to everyone; a client that switches partition is told to reload what
    /// belongs to it (`Client::SetPartition`), switching to the partition it is in tells it nothing.
    @Test func eventsOfNewpartitionAndPartition() async {
        let s = AudioServer()
        let c = await s.client()
        #expect(await c.send("newpartition p2") == "OK\n")
        #expect(c.deliverBroadcast() == "")
        #expect(await c.send("partition p2") == "OK\n")
        #expect(await c.send("idle") == """
            changed: playlist
            changed: player
            changed: mixer
            changed: output
            changed: options
            changed: partition
            OK

            """)
        #expect(await c.send("partition p2") == "OK\n")
        #expect(await c.send("idle") == "")
        #expect(await c.send("noidle") == "OK\n")
    }

    /// An output moves by name into the client's partition, leaving a disabled `dummy` in its place, and moves
    /// back into that place; a partition that holds one cannot be deleted.
    @Test func moveoutputAndBack() async {
        let s = AudioServer()
        let c = await s.client()
        #expect(await c.send("newpartition kitchen") == "OK\n")
        #expect(await c.send("partition kitchen") == "OK\n")
        #expect(await c.send("moveoutput null") == "OK\n")
        #expect(await c.send("moveoutput null") == "OK\n")
        #expect(await c.send("moveoutput nothere") == "ACK [50@0] {moveoutput} No such output\n")
        #expect(await c.send("outputs") == "outputid: 0\noutputname: null\nplugin: null\noutputenabled: 1\nOK\n")
        #expect(await c.send("partition default") == "OK\n")
        #expect(await c.send("outputs") == """
            outputid: 0
            outputname: null
            plugin: dummy
            outputenabled: 0
            outputid: 1
            outputname: second
            plugin: alsa
            outputenabled: 1
            attribute: allowed_formats=
            attribute: dop=0
            OK

            """)
        #expect(await c.send("delpartition kitchen") == "ACK [5@0] {delpartition} partition still has outputs\n")
        #expect(await c.send("moveoutput null") == "OK\n")
        #expect(await c.send("outputs") == OutputCommandsTests.bothEnabled)
        #expect(await c.send("delpartition kitchen") == "OK\n")
    }

    @Test func errorsAsMPD() async {
        let s = AudioServer()
        let c = await s.client()
        #expect(await c.send("newpartition kitchen") == "OK\n")
        #expect(await c.send("newpartition kitchen") == "ACK [56@0] {newpartition} name already exists\n")
        #expect(await c.send("newpartition bad.name") == "ACK [2@0] {newpartition} bad name\n")
        #expect(await c.send("newpartition \"\"") == "ACK [2@0] {newpartition} bad name\n")
        #expect(await c.send("partition nowhere") == "ACK [50@0] {partition} partition does not exist\n")
        #expect(await c.send("delpartition bad.name") == "ACK [2@0] {delpartition} bad name\n")
        #expect(await c.send("delpartition nope") == "ACK [50@0] {delpartition} no such partition\n")
        #expect(await c.send("delpartition default") ==
                "ACK [5@0] {delpartition} cannot delete the default partition\n")
        let other = await s.client()
        #expect(await other.send("partition kitchen") == "OK\n")
        #expect(await c.send("delpartition kitchen") == "ACK [5@0] {delpartition} partition still has clients\n")
        #expect(await c.send("partition") == "ACK [2@0] {partition} wrong number of arguments for \"partition\"\n")
        #expect(await c.send("listpartitions x") ==
                "ACK [2@0] {listpartitions} wrong number of arguments for \"listpartitions\"\n")
    }

    /// MPD's arbitrary limit: 16 partitions, the default one included.
    @Test func atMostSixteenPartitions() async {
        let c = await TestSession(server: TestSession.server())
        for index in 1...15 { #expect(await c.send("newpartition p\(index)") == "OK\n") }
        #expect(await c.send("newpartition p16") == "ACK [5@0] {newpartition} too many partitions\n")
    }

    /// Switching and listing need `read`; creating, deleting and moving outputs `admin`.
    @Test func permissions() async {
        let s = AudioServer { $0.defaultPermissions = [.read, .add, .control, .player] }
        let c = await s.client()
        #expect(await c.send("partition default") == "OK\n")
        #expect(await c.send("listpartitions") == "partition: default\nOK\n")
        for line in ["newpartition p2", "delpartition p2", "moveoutput null"] {
            let name = line.prefix { $0 != " " }
            #expect(await c.send(line) == "ACK [4@0] {\(name)} you don't have permission for \"\(name)\"\n")
        }
    }
}
