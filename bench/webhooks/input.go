package main

import "logistics/internal/webhooks"

func webhookInput(url string) webhooks.EndpointInput { return webhooks.EndpointInput{URL: &url} }
