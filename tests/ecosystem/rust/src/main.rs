//! A kube-rs reflector, unmodified kube-rs, against whatever server its
//! kubeconfig names (informerd's Kubernetes API port in
//! tests/ecosystem/run.sh): `reflector(store, watcher(..))` over one
//! namespace's ConfigMaps, with kube-rs's default backoff.
//!
//! Usage: kube-rs-reflector KUBECONFIG NAMESPACE CLIENT_NAME
//! Prints "SYNCED" once the watcher's initial list is in the store and this
//! client has written its own ConfigMap (the write passes through informerd
//! to the apiserver); when the ConfigMap named "done" is in the store it
//! prints "CACHE {name: resourceVersion}" and exits 0.

use std::collections::BTreeMap;
use std::error::Error;

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::reflector::{self, reflector, Store};
use kube::runtime::{watcher, WatchStreamExt};
use kube::{Client, Config};

fn cache_if_done(store: &Store<ConfigMap>) -> Option<String> {
    let objects = store.state();
    if !objects.iter().any(|o| o.metadata.name.as_deref() == Some("done")) {
        return None;
    }
    let cache: BTreeMap<String, String> = objects
        .iter()
        .map(|o| {
            (
                o.metadata.name.clone().unwrap_or_default(),
                o.metadata.resource_version.clone().unwrap_or_default(),
            )
        })
        .collect();
    Some(serde_json::to_string(&cache).expect("a map of strings serializes"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        return Err("usage: kube-rs-reflector KUBECONFIG NAMESPACE CLIENT_NAME".into());
    }
    let (path, namespace, name) = (&args[1], &args[2], &args[3]);
    let kubeconfig = Kubeconfig::read_from(path)?;
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
    let api: Api<ConfigMap> = Api::namespaced(Client::try_from(config)?, namespace);

    let (store, writer) = reflector::store();
    let mut events =
        reflector(writer, watcher(api.clone(), watcher::Config::default()).default_backoff()).boxed();
    let mut synced = false;
    while let Some(event) = events.next().await {
        match event {
            Err(err) => eprintln!("watcher error: {err}; it backs off and retries"),
            Ok(watcher::Event::InitDone) if !synced => {
                let own = ConfigMap {
                    metadata: ObjectMeta { name: Some(format!("written-by-{name}")), ..Default::default() },
                    data: Some(BTreeMap::from([("client".to_string(), name.clone())])),
                    ..Default::default()
                };
                api.create(&PostParams::default(), &own).await?;
                synced = true;
                println!("SYNCED");
            }
            Ok(_) => {}
        }
        if synced {
            if let Some(cache) = cache_if_done(&store) {
                println!("CACHE {cache}");
                return Ok(());
            }
        }
    }
    Err("the watcher stream ended".into())
}
