// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * 'make static' only, and only once libmicrohttpd is linked: Debian's
 * libmicrohttpd.a is built with HTTPS support and so needs GnuTLS, whose
 * own static link needs libp11-kit.a, which Debian does not ship. So
 * the static binary gets these stand-ins for every GnuTLS function
 * libmicrohttpd.a, lib/httpd.c and serve/web.c refer to: library set-up succeeds,
 * everything else fails with GNUTLS_E_UNIMPLEMENTED_FEATURE, and
 * gnutls_check_version() knows no version, which is how the static
 * binary knows it cannot serve HTTPS (httpd_tls_available()): 'export
 * --web-config' refuses tls_server_config then, in one line, and basic
 * auth (libcrypt, linked in) works. Prototypes from <gnutls/gnutls.h>, so
 * the compiler checks each one.
 */
#include <stdlib.h>

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#define NO_TLS GNUTLS_E_UNIMPLEMENTED_FEATURE

gnutls_alloc_function gnutls_malloc = malloc;
#undef gnutls_free
gnutls_free_function gnutls_free = free;

/* libmicrohttpd's constructor and destructor call these: they succeed */
int gnutls_global_init(void)
{
	return 0;
}

void gnutls_global_deinit(void)
{
}

/* no GnuTLS here: the one answer that says so */
const char *gnutls_check_version(const char *req_version)
{
	return NULL;
}

const gnutls_datum_t *gnutls_certificate_get_peers(gnutls_session_t session,
						   unsigned int *list_size)
{
	*list_size = 0;
	return NULL;
}

int gnutls_certificate_verify_peers2(gnutls_session_t session, unsigned int *status)
{
	return NO_TLS;
}

const char *gnutls_strerror(int error)
{
	return "TLS is not built into the static ppwatch";
}

int gnutls_init(gnutls_session_t *session, unsigned int flags)
{
	return NO_TLS;
}

void gnutls_deinit(gnutls_session_t session)
{
}

int gnutls_handshake(gnutls_session_t session)
{
	return NO_TLS;
}

int gnutls_bye(gnutls_session_t session, gnutls_close_request_t how)
{
	return NO_TLS;
}

ssize_t gnutls_record_recv(gnutls_session_t session, void *data, size_t size)
{
	return NO_TLS;
}

ssize_t gnutls_record_send(gnutls_session_t session, const void *data, size_t size)
{
	return NO_TLS;
}

size_t gnutls_record_check_pending(gnutls_session_t session)
{
	return 0;
}

int gnutls_record_get_direction(gnutls_session_t session)
{
	return 0;
}

void *gnutls_session_get_ptr(gnutls_session_t session)
{
	return NULL;
}

void gnutls_session_set_ptr(gnutls_session_t session, void *ptr)
{
}

void gnutls_transport_set_int2(gnutls_session_t session, int r, int s)
{
}

gnutls_cipher_algorithm_t gnutls_cipher_get(gnutls_session_t session)
{
	return GNUTLS_CIPHER_UNKNOWN;
}

gnutls_protocol_t gnutls_protocol_get_version(gnutls_session_t session)
{
	return GNUTLS_VERSION_UNKNOWN;
}

int gnutls_priority_init(gnutls_priority_t *priority_cache, const char *priorities,
			 const char **err_pos)
{
	return NO_TLS;
}

void gnutls_priority_deinit(gnutls_priority_t priority_cache)
{
}

int gnutls_priority_set(gnutls_session_t session, gnutls_priority_t priority)
{
	return NO_TLS;
}

int gnutls_alpn_set_protocols(gnutls_session_t session, const gnutls_datum_t *protocols,
			      unsigned protocols_size, unsigned int flags)
{
	return NO_TLS;
}

int gnutls_credentials_set(gnutls_session_t session, gnutls_credentials_type_t type, void *cred)
{
	return NO_TLS;
}

int gnutls_certificate_allocate_credentials(gnutls_certificate_credentials_t *res)
{
	return NO_TLS;
}

void gnutls_certificate_free_credentials(gnutls_certificate_credentials_t sc)
{
}

void gnutls_certificate_server_set_request(gnutls_session_t session,
					   gnutls_certificate_request_t req)
{
}

void gnutls_certificate_set_dh_params(gnutls_certificate_credentials_t res,
				      gnutls_dh_params_t dh_params)
{
}

void gnutls_certificate_set_retrieve_function2(gnutls_certificate_credentials_t cred,
					       gnutls_certificate_retrieve_function2 *func)
{
}

void gnutls_certificate_set_retrieve_function3(gnutls_certificate_credentials_t cred,
					       gnutls_certificate_retrieve_function3 *func)
{
}

int gnutls_certificate_set_x509_key_mem(gnutls_certificate_credentials_t res,
					const gnutls_datum_t *cert, const gnutls_datum_t *key,
					gnutls_x509_crt_fmt_t type)
{
	return NO_TLS;
}

int gnutls_certificate_set_x509_key_mem2(gnutls_certificate_credentials_t res,
					 const gnutls_datum_t *cert, const gnutls_datum_t *key,
					 gnutls_x509_crt_fmt_t type, const char *pass,
					 unsigned int flags)
{
	return NO_TLS;
}

int gnutls_certificate_set_x509_trust_mem(gnutls_certificate_credentials_t res,
					  const gnutls_datum_t *ca, gnutls_x509_crt_fmt_t type)
{
	return NO_TLS;
}

int gnutls_dh_params_init(gnutls_dh_params_t *dh_params)
{
	return NO_TLS;
}

void gnutls_dh_params_deinit(gnutls_dh_params_t dh_params)
{
}

int gnutls_dh_params_import_pkcs3(gnutls_dh_params_t params, const gnutls_datum_t *pkcs3_params,
				  gnutls_x509_crt_fmt_t format)
{
	return NO_TLS;
}

int gnutls_psk_allocate_server_credentials(gnutls_psk_server_credentials_t *sc)
{
	return NO_TLS;
}

void gnutls_psk_free_server_credentials(gnutls_psk_server_credentials_t sc)
{
}

void gnutls_psk_set_server_credentials_function(gnutls_psk_server_credentials_t cred,
						gnutls_psk_server_credentials_function *func)
{
}

int gnutls_certificate_verify_peers(gnutls_session_t session, gnutls_typed_vdata_st *data,
				    unsigned int elements, unsigned int *status)
{
	return NO_TLS;
}

int gnutls_certificate_verification_status_print(unsigned int status,
						 gnutls_certificate_type_t type,
						 gnutls_datum_t *out, unsigned int flags)
{
	return NO_TLS;
}

int gnutls_x509_crt_init(gnutls_x509_crt_t *cert)
{
	return NO_TLS;
}

void gnutls_x509_crt_deinit(gnutls_x509_crt_t cert)
{
}

int gnutls_x509_crt_import(gnutls_x509_crt_t cert, const gnutls_datum_t *data,
			   gnutls_x509_crt_fmt_t format)
{
	return NO_TLS;
}

int gnutls_x509_crt_list_import2(gnutls_x509_crt_t **certs, unsigned int *size,
				 const gnutls_datum_t *data, gnutls_x509_crt_fmt_t format,
				 unsigned int flags)
{
	*size = 0;
	return NO_TLS;
}

time_t gnutls_x509_crt_get_activation_time(gnutls_x509_crt_t cert)
{
	return (time_t)-1;
}

time_t gnutls_x509_crt_get_expiration_time(gnutls_x509_crt_t cert)
{
	return (time_t)-1;
}
