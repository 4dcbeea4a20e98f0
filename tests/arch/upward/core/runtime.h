// The header the upward include names.
#pragma once
