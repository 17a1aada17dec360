//! The control plane's keys, made fresh for every start: one CA signs the API server's
//! serving certificate and the admin's client certificate (so clients verify the server and
//! the server authenticates the admin as a real cluster does), and a key pair signs
//! `ServiceAccount` tokens.
use std::path::Path;

use anyhow::Context as _;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, SanType,
};

/// PEM text of everything the processes and the kubeconfigs need.
pub(super) struct Pki {
    pub ca_cert: String,
    pub serving_cert: String,
    pub serving_key: String,
    pub admin_cert: String,
    pub admin_key: String,
    pub service_account_public: String,
    pub service_account_private: String,
}

/// The admin's user name; its group `system:masters` is allowed everything by RBAC.
pub(super) const ADMIN_USER: &str = "envtest-admin";

impl Pki {
    pub fn generate() -> anyhow::Result<Pki> {
        let ca_key = KeyPair::generate().context("cannot generate the envtest CA key")?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.distinguished_name = name("envtest-ca", None);
        let ca_cert = ca_params.self_signed(&ca_key)?.pem();
        let ca = Issuer::new(ca_params, ca_key);

        let serving_key = KeyPair::generate()?;
        let mut serving = CertificateParams::new(vec!["localhost".to_string()])?;
        serving.subject_alt_names.extend([
            SanType::IpAddress([127, 0, 0, 1].into()),
            SanType::DnsName("kubernetes.default.svc".try_into()?),
        ]);
        serving.distinguished_name = name("kube-apiserver", None);
        serving.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let serving_cert = serving.signed_by(&serving_key, &ca)?.pem();

        let admin_key = KeyPair::generate()?;
        let mut admin = CertificateParams::new(Vec::<String>::new())?;
        admin.distinguished_name = name(ADMIN_USER, Some("system:masters"));
        admin.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let admin_cert = admin.signed_by(&admin_key, &ca)?.pem();

        let service_account = KeyPair::generate()?;
        Ok(Pki {
            ca_cert,
            serving_cert,
            serving_key: serving_key.serialize_pem(),
            admin_cert,
            admin_key: admin_key.serialize_pem(),
            service_account_public: service_account.public_key_pem(),
            service_account_private: service_account.serialize_pem(),
        })
    }

    /// Write the files kube-apiserver reads, readable by their owner only.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        for (file, text) in [
            ("ca.crt", &self.ca_cert),
            ("apiserver.crt", &self.serving_cert),
            ("apiserver.key", &self.serving_key),
            ("sa.pub", &self.service_account_public),
            ("sa.key", &self.service_account_private),
        ] {
            super::write_private(&dir.join(file), text)?;
        }
        Ok(())
    }
}

/// A subject with a common name (the user) and, for clients, an organization (the group).
fn name(common: &str, organization: Option<&str>) -> DistinguishedName {
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, common);
    if let Some(organization) = organization {
        name.push(DnType::OrganizationName, organization);
    }
    name
}
