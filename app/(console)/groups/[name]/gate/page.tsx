import type { Metadata } from "next";
import { HydrationBoundary } from "@tanstack/react-query";
import { openPage } from "@/lib/server/console/open-page";
import { GateView } from "./gate-view";

type Props = { params: Promise<{ name: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Gate · ${(await params).name}` };
}

export default async function GroupGatePage(props: Props) {
  const { state, params } = await openPage("/groups/[name]/gate", props);
  return (
    <HydrationBoundary state={state}>
      <GateView group={params.name ?? ""} />
    </HydrationBoundary>
  );
}
