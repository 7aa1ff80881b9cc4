// The test node's pod sandbox program (hack/node.sh): standard library only.
module informerd.local/node/pause

go 1.26.0
