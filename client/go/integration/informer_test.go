package integration

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/internal/cache"
	"github.com/informerd/informerd/client/go/internal/decode"
	"github.com/informerd/informerd/client/go/internal/informer"
	"k8s.io/apimachinery/pkg/labels"
)

// mirror rebuilds the cache from handler calls alone and counts calls that
// break the handler contract (an add for a known key, an update or delete
// for an unknown one).
type mirror struct {
	mu                 sync.Mutex
	objects            map[string]string // key -> resourceVersion
	violations         []string
	finalStateUnknowns int
}

func newMirror() *mirror { return &mirror{objects: map[string]string{}} }

func (m *mirror) OnAdd(obj *informerdv1.Object) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := cache.ObjectKey(obj)
	if _, known := m.objects[key]; known {
		m.violations = append(m.violations, "add of known "+key)
	}
	m.objects[key] = obj.GetResourceVersion()
}

func (m *mirror) OnUpdate(oldObj, newObj *informerdv1.Object) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := cache.ObjectKey(newObj)
	if rv, known := m.objects[key]; !known || rv != oldObj.GetResourceVersion() {
		m.violations = append(m.violations, fmt.Sprintf("update of %s from %s, mirror has %q", key, oldObj.GetResourceVersion(), rv))
	}
	m.objects[key] = newObj.GetResourceVersion()
}

func (m *mirror) OnDelete(obj *informerdv1.Object, finalStateUnknown bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := cache.ObjectKey(obj)
	if _, known := m.objects[key]; !known {
		m.violations = append(m.violations, "delete of unknown "+key)
	}
	if finalStateUnknown {
		m.finalStateUnknowns++
	}
	delete(m.objects, key)
}

func (m *mirror) snapshot() (map[string]string, []string, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	objects := make(map[string]string, len(m.objects))
	for k, v := range m.objects {
		objects[k] = v
	}
	return objects, append([]string(nil), m.violations...), m.finalStateUnknowns
}

// churner creates, updates and deletes ConfigMaps named cm-N in one
// namespace, remembering which exist.
type churner struct {
	api       *apiserver
	namespace string
	random    *rand.Rand
	existing  []string
	created   int
}

func (c *churner) create() error {
	return c.createInTeam([]string{"a", "b"}[c.random.Intn(2)])
}

// createInTeam creates the next ConfigMap with the label team=TEAM.
func (c *churner) createInTeam(team string) error {
	c.created++
	name := fmt.Sprintf("cm-%d", c.created)
	err := c.api.createConfigMap(c.namespace, configMap{
		Metadata: metadata{Name: name, Labels: map[string]string{"team": team}},
		Data:     map[string]string{"n": "0"},
	})
	if err == nil {
		c.existing = append(c.existing, name)
	}
	return err
}

func (c *churner) deleteOne() error {
	i := c.random.Intn(len(c.existing))
	name := c.existing[i]
	c.existing = append(c.existing[:i], c.existing[i+1:]...)
	return c.api.deleteConfigMap(c.namespace, name)
}

// step makes one random change, keeping between 5 and 40 objects.
// steps makes n random changes (step), failing the test on an error.
func (c *churner) steps(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := c.step(); err != nil {
			t.Fatal(err)
		}
	}
}

func (c *churner) step() error {
	switch r := c.random.Intn(10); {
	case len(c.existing) < 5 || (r < 4 && len(c.existing) < 40):
		return c.create()
	case r < 8:
		name := c.existing[c.random.Intn(len(c.existing))]
		return c.api.patchConfigMap(c.namespace, name, map[string]string{"n": fmt.Sprint(c.random.Int())})
	default:
		return c.deleteOne()
	}
}

func keyed(namespace string, byName map[string]string) map[string]string {
	out := make(map[string]string, len(byName))
	for name, rv := range byName {
		out[cache.Key(namespace, name)] = rv
	}
	return out
}

func listerContent(lister cache.Lister) map[string]string {
	out := map[string]string{}
	for _, obj := range lister.List(nil) {
		out[cache.ObjectKey(obj)] = obj.GetResourceVersion()
	}
	return out
}

func TestInformerConvergesThroughChurnAndServerRestart(t *testing.T) {
	lc := newLiveCluster(t, "go-client-e2e", 10, time.Now().UnixNano(), connection.Options{CallTimeout: 10 * time.Second})
	api, namespace, churn, server, ctx, cancel, conn := lc.api, lc.namespace, lc.churn, lc.server, lc.ctx, lc.cancel, lc.conn
	inf, err := informer.New(informerdv1.NewCacheClient(conn), informer.Config{
		Resource:       &informerdv1.ResourceName{Resource: "configmaps"},
		Namespace:      namespace,
		Indexers:       cache.Indexers{"team": func(obj *informerdv1.Object) []string { return []string{obj.GetLabels()["team"]} }},
		InitialBackoff: 50 * time.Millisecond,
		MaxBackoff:     time.Second,
		OnError:        func(err error) { t.Logf("informer: %v", err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	handler := newMirror()
	if err := inf.AddEventHandler(handler); err != nil {
		t.Fatal(err)
	}
	inf.Start(ctx)
	// OnError logs through t, so the informer must stop before the test ends.
	defer func() {
		cancel()
		<-inf.Done()
	}()
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if !inf.WaitForSync(syncCtx) {
		t.Fatal("informer did not sync within 30s")
	}
	if got := inf.Lister().Len(); got != 10 {
		t.Errorf("after sync the cache holds %d objects, want 10", got)
	}

	churn.steps(t, 60)
	// Changes while informerd is down reach the informer when it resumes on
	// the restarted server, which backfills its history from the apiserver:
	// deletes among them come as ordinary deletes, not from a relist.
	server.stop(t)
	for i := 0; i < 3; i++ {
		if err := churn.deleteOne(); err != nil {
			t.Fatal(err)
		}
		if err := churn.step(); err != nil {
			t.Fatal(err)
		}
	}
	server.start(t)
	churn.steps(t, 60)

	listed, err := api.listConfigMaps(namespace)
	if err != nil {
		t.Fatal(err)
	}
	want := keyed(namespace, listed)
	// The informer is eventually consistent; poll until it catches up.
	deadline := time.Now().Add(30 * time.Second)
	for !reflect.DeepEqual(listerContent(inf.Lister()), want) {
		if time.Now().After(deadline) {
			t.Fatalf("informer cache did not converge within 30s:\n got  %v\n want %v", listerContent(inf.Lister()), want)
		}
		time.Sleep(50 * time.Millisecond)
	}

	mirrored, violations, finalStateUnknowns := handler.snapshot()
	if len(violations) > 0 {
		t.Errorf("handler contract violations: %v", violations)
	}
	if !reflect.DeepEqual(mirrored, want) {
		t.Errorf("state rebuilt from handler calls differs from the apiserver:\n got  %v\n want %v", mirrored, want)
	}
	if finalStateUnknowns != 0 {
		t.Errorf("%d final-state-unknown deletes: the informer relisted instead of resuming on the restarted informerd", finalStateUnknowns)
	}

	checkListerQueries(t, inf.Lister(), namespace)
}

// checkListerQueries compares selector, namespace and index queries with a
// filter over the whole cache.
func checkListerQueries(t *testing.T, lister cache.Lister, namespace string) {
	t.Helper()
	all := lister.List(nil)
	teamA := 0
	for _, obj := range all {
		if obj.GetLabels()["team"] == "a" {
			teamA++
		}
		if _, err := decode.Decode[configMap](obj); err != nil {
			t.Errorf("decode: %v", err)
		}
	}
	selector, err := labels.Parse("team in (a)")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(lister.List(selector)); got != teamA {
		t.Errorf("List(team in (a)) has %d objects, want %d", got, teamA)
	}
	byIndex, err := lister.ByIndex("team", "a")
	if err != nil || len(byIndex) != teamA {
		t.Errorf("ByIndex(team, a) = %d objects, %v; want %d", len(byIndex), err, teamA)
	}
	if got := len(lister.ListNamespace(namespace, nil)); got != len(all) {
		t.Errorf("ListNamespace(%s) has %d objects, want %d", namespace, got, len(all))
	}
}
